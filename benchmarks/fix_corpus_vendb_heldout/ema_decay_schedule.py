# spec: {"model": "ema_decay_schedule.py:EMATeacher", "init": {"args": [8]}, "inputs": [{"tensor": [4, 8]}], "mode": "train", "calls": 3}
from copy import deepcopy

import torch
from torch import nn

# vendored from ema-pytorch 0.8.3 ema_pytorch/ema_pytorch.py
# (EMA.get_current_decay, EMA.update and update_moving_average, without the hooks and the
# device moves; a self-distillation student updates its teacher every call)


def exists(val):
    return val is not None


def divisible_by(num, den):
    return (num % den) == 0


class EMA(nn.Module):
    def __init__(self, model, beta=0.9999, update_after_step=1, update_every=1, inv_gamma=1.0, power=2 / 3, min_value=0.0):
        super().__init__()
        self.beta = beta
        self.online_model = [model]
        self.ema_model = deepcopy(model)
        self.ema_model.requires_grad_(False)
        self.update_every = update_every
        self.update_after_step = update_after_step
        self.inv_gamma = inv_gamma
        self.power = power
        self.min_value = min_value
        self.register_buffer("initted", torch.tensor(False))
        self.register_buffer("step", torch.tensor(0))

    @property
    def model(self):
        return self.online_model[0]

    def copy_params_from_model_to_ema(self):
        for ma_params, current_params in zip(self.ema_model.parameters(), self.model.parameters()):
            ma_params.data.copy_(current_params.data)

    def get_current_decay(self):
        epoch = (self.step - self.update_after_step - 1).clamp(min=0.0)
        value = 1 - (1 + epoch / self.inv_gamma) ** -self.power

        if epoch.item() <= 0:
            return 0.0

        return value.clamp(min=self.min_value, max=self.beta).item()

    def update(self):
        step = self.step.item()
        self.step += 1

        if not self.initted.item():
            self.copy_params_from_model_to_ema()
            self.initted.data.copy_(torch.tensor(True))
            return

        should_update = divisible_by(step, self.update_every)

        if should_update and step <= self.update_after_step:
            self.copy_params_from_model_to_ema()
            return

        if should_update:
            self.update_moving_average(self.ema_model, self.model)

    @torch.no_grad()
    def update_moving_average(self, ma_model, current_model):
        current_decay = self.get_current_decay()
        for current_params, ma_params in zip(current_model.parameters(), ma_model.parameters()):
            ma_params.data.lerp_(current_params.data, 1.0 - current_decay)

    def __call__(self, *args, **kwargs):
        return self.ema_model(*args, **kwargs)


class EMATeacher(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.student = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim))
        self.teacher = EMA(self.student, beta=0.99, update_after_step=1)

    def forward(self, x):
        if self.training:
            self.teacher.update()
        with torch.no_grad():
            target = self.teacher(x)
        pred = self.student(x)
        return ((pred - target) ** 2).mean()
