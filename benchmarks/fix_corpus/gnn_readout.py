# spec: {"model": "gnn_readout.py:GraphReadout", "init": {"args": [8]}, "inputs": [{"tensor": [12, 8]}]}
import logging

import torch
import torch.nn as nn

logger = logging.getLogger(__name__)


class GraphReadout(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.gate = nn.Linear(dim, 1)
        self.out = nn.Linear(dim, dim)

    def forward(self, node_feats):
        weights = torch.sigmoid(self.gate(node_feats))
        num_active = int((weights > 0.5).sum())
        logger.info("active nodes: %d", num_active)
        pooled = (weights * node_feats).sum(0)
        return self.out(pooled)
