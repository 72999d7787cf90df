# spec: {"model": "xt_entropy_tokenizer.py:EntropyChunker", "init": {"args": [20, 16]}, "inputs": [{"tensor": [2, 12], "dtype": "int64", "init": "randint", "low": 0, "high": 20}]}
import torch
import torch.nn.functional as F
from einops import rearrange
from torch import nn

# vendored from x-transformers 2.31.10 x_transformers/entropy_based_tokenizer.py
# (EntropyBasedTokenizer.forward: boundaries where the small LM's entropy passes a threshold,
# then per-sequence token lengths; the decoder is a stand-in embedding + linear LM)


def exists(v):
    return v is not None


def calc_entropy_from_logits(logits):
    prob = logits.softmax(dim=-1)
    return -(prob * torch.log(prob.clamp(min=1e-20))).sum(dim=-1)


class EntropyChunker(nn.Module):
    def __init__(self, num_tokens, dim, entropy_threshold=2.9):
        super().__init__()
        self.embed = nn.Embedding(num_tokens, dim)
        self.to_logits = nn.Linear(dim, num_tokens)
        self.entropy_threshold = entropy_threshold

    @torch.no_grad()
    def forward(self, seq, return_segmented_seq=False):
        batch, seq_len, device = *seq.shape, seq.device

        logits = self.to_logits(self.embed(seq))
        entropies = calc_entropy_from_logits(logits)

        over_thres_mask = entropies >= self.entropy_threshold

        arange = torch.arange(seq_len, device=device)
        arange_plus_one = arange + 1
        arange_plus_one = rearrange(arange_plus_one, "n -> 1 n").expand(batch, -1)

        boundaries = over_thres_mask.clone()
        boundaries[..., -1] = True

        # number of tokens

        num_tokens = boundaries.sum(dim=-1)

        # get number of tokens as well as derived indices

        indices = arange_plus_one[boundaries].split(num_tokens.tolist())

        # get the token lengths

        token_lengths = []

        for one_indices in indices:
            padded_indices = F.pad(one_indices, (1, 0), value=0.0)
            one_token_lengths = padded_indices[1:] - padded_indices[:-1]
            token_lengths.append(one_token_lengths)

        token_lengths = nn.utils.rnn.pad_sequence(token_lengths, batch_first=True)

        if not return_segmented_seq:
            return token_lengths

        return token_lengths, [one_seq.split(one_len.tolist()) for one_seq, one_len in zip(seq, token_lengths)]
