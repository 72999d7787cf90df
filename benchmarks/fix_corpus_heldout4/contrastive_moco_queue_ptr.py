# spec: {"model": "contrastive_moco_queue_ptr.py:MoCoHead", "init": {"args": [32]}, "inputs": [{"tensor": [8, 32]}, {"tensor": [8, 32]}]}
import torch
import torch.nn.functional as F
from torch import nn


class MoCoHead(nn.Module):
    """MoCo v2 InfoNCE head with the reference code's ring-buffer queue and integer queue pointer buffer."""

    def __init__(self, dim, K=64, m=0.99, T=0.2):
        super().__init__()
        self.K, self.m, self.T = K, m, T
        self.encoder_q = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, 16))
        self.encoder_k = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, 16))
        self.encoder_k.load_state_dict(self.encoder_q.state_dict())
        self.register_buffer("queue", F.normalize(torch.randn(16, K), dim=0))
        self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))

    @torch.no_grad()
    def _dequeue_and_enqueue(self, keys):
        batch_size = keys.shape[0]
        ptr = int(self.queue_ptr)
        assert self.K % batch_size == 0
        self.queue[:, ptr : ptr + batch_size] = keys.T
        ptr = (ptr + batch_size) % self.K
        self.queue_ptr[0] = ptr

    def forward(self, im_q, im_k):
        q = F.normalize(self.encoder_q(im_q), dim=1)
        with torch.no_grad():
            for pq, pk in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
                pk.data = pk.data * self.m + pq.data * (1.0 - self.m)
            k = F.normalize(self.encoder_k(im_k), dim=1)
        l_pos = torch.einsum("nc,nc->n", [q, k]).unsqueeze(-1)
        l_neg = torch.einsum("nc,ck->nk", [q, self.queue.clone().detach()])
        logits = torch.cat([l_pos, l_neg], dim=1) / self.T
        labels = torch.zeros(logits.shape[0], dtype=torch.long)
        self._dequeue_and_enqueue(k)
        return F.cross_entropy(logits, labels)
