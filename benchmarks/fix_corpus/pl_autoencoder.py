# spec: {"model": "pl_autoencoder.py:AutoEncoder", "inputs": [{"tensor": [4, 16]}]}
import logging

import torch
from torch import nn

log = logging.getLogger("lightning.example")


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 3))
        self.decoder = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 16))

    def forward(self, x):
        z = self.encoder(x)
        log.info("latent norm: %.4f", z.norm().item())
        x_hat = self.decoder(z)
        loss = nn.functional.mse_loss(x_hat, x)
        log.debug("reconstruction loss %s", loss)
        return x_hat
