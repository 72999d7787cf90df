# spec: {"model": "rl_isaac_env_reset.py:ActorWithEnvBuffers", "init": {"args": [8, 2, 16]}, "inputs": [{"tensor": [16, 8]}, {"tensor": [16], "dtype": "bool", "p": 0.3}], "calls": 3}
import torch
from torch import nn


class ActorWithEnvBuffers(nn.Module):
    """A policy with per-environment buffers reset on done, IsaacGymEnvs style (`reset_idx(env_ids)`)."""

    def __init__(self, obs_dim, act_dim, num_envs, hidden=32):
        super().__init__()
        self.mu = nn.Sequential(nn.Linear(obs_dim + act_dim, hidden), nn.ELU(), nn.Linear(hidden, act_dim))
        self.register_buffer("progress_buf", torch.zeros(num_envs, dtype=torch.long))
        self.register_buffer("prev_actions", torch.zeros(num_envs, act_dim))

    def forward(self, obs, reset_buf):
        env_ids = reset_buf.nonzero(as_tuple=False).squeeze(-1)
        self.progress_buf[env_ids] = 0
        self.prev_actions[env_ids] = 0.0
        self.progress_buf += 1
        actions = torch.tanh(self.mu(torch.cat([obs, self.prev_actions], dim=-1)))
        self.prev_actions.copy_(actions.detach())
        return actions, self.progress_buf.float()
