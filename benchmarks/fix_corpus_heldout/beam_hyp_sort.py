# spec: {"model": "beam_hyp_sort.py:BeamRescorer", "init": {"args": [16, 10]}, "inputs": [{"tensor": [4, 5, 16]}]}
import torch
from torch import nn


class BeamRescorer(nn.Module):
    """Rescore beam hypotheses with a length penalty and keep the best ones (fairseq-style)."""

    def __init__(self, dim, vocab, keep=2, alpha=0.6):
        super().__init__()
        self.lm = nn.Linear(dim, vocab)
        self.keep = keep
        self.alpha = alpha

    def forward(self, hyp_states):
        logp = self.lm(hyp_states).log_softmax(-1).amax(-1)
        length = hyp_states.shape[1]
        penalty = ((5 + length) / 6) ** self.alpha
        scores = logp.sum(-1) / penalty
        hyps = [(scores[i], hyp_states[i]) for i in range(hyp_states.shape[0])]
        best = sorted(hyps, key=lambda h: h[0], reverse=True)[: self.keep]
        return torch.stack([h for _, h in best]), torch.stack([s for s, _ in best])
