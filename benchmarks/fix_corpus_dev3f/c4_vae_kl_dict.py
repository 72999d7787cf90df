# spec: {"model": "c4_vae_kl_dict.py:VAE", "init": {"args": [20, 4], "kwargs": {"beta": 4.0}}, "inputs": [{"tensor": [6, 20]}], "mode": "train", "calls": 3}
import torch
import torch.nn.functional as F
from torch import nn


class VAE(nn.Module):
    """PyTorch-VAE's ``BetaVAE`` loss in one forward: reparameterise only in training, the KL
    term summed over latents, the loss weighted by ``beta`` and a KL weight from the config;
    a dict of losses returned."""

    def __init__(self, in_dim, latent_dim, hidden_dims=None, beta=1.0, kld_weight=0.005, loss_type="B"):
        super().__init__()
        hidden_dims = hidden_dims or [32, 16]
        self.beta = beta
        self.kld_weight = kld_weight
        self.loss_type = loss_type
        modules = []
        prev = in_dim
        for h_dim in hidden_dims:
            modules.append(nn.Sequential(nn.Linear(prev, h_dim), nn.LeakyReLU()))
            prev = h_dim
        self.encoder = nn.Sequential(*modules)
        self.fc_mu = nn.Linear(hidden_dims[-1], latent_dim)
        self.fc_var = nn.Linear(hidden_dims[-1], latent_dim)
        hidden_dims.reverse()
        self.decoder = nn.Sequential(nn.Linear(latent_dim, hidden_dims[0]), nn.LeakyReLU(), nn.Linear(hidden_dims[0], in_dim))
        self.register_buffer("C_max", torch.tensor([25.0]))

    def encode(self, x):
        result = self.encoder(x)
        return [self.fc_mu(result), self.fc_var(result)]

    def reparameterize(self, mu, logvar):
        if self.training:
            std = torch.exp(0.5 * logvar)
            eps = torch.randn_like(std)
            return eps * std + mu
        return mu

    def forward(self, x):
        mu, log_var = self.encode(x)
        z = self.reparameterize(mu, log_var)
        recons = self.decoder(z)
        recons_loss = F.mse_loss(recons, x)
        kld_loss = torch.mean(-0.5 * torch.sum(1 + log_var - mu**2 - log_var.exp(), dim=1), dim=0)
        if self.loss_type == "H":
            loss = recons_loss + self.beta * self.kld_weight * kld_loss
        elif self.loss_type == "B":
            C = torch.clamp(self.C_max / 1000.0, 0, self.C_max.item() if not torch.compiler.is_compiling() else 25.0)
            loss = recons_loss + 10.0 * self.kld_weight * (kld_loss - C).abs()
        else:
            raise ValueError("Undefined loss type.")
        return {"loss": loss.squeeze(), "Reconstruction_Loss": recons_loss.detach(), "KLD": -kld_loss.detach()}
