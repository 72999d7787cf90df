# spec: {"model": "clean_lora_adapter_dict_switch.py:MultiAdapterLinear", "init": {"args": [8, 8, ["en", "de"]]}, "inputs": [{"tensor": [4, 8]}]}
from torch import nn


class MultiAdapterLinear(nn.Module):
    """PEFT-like multi-adapter LoRA layer: adapters in ModuleDicts keyed by name, the active one
    chosen by a string attribute; scaling per adapter in a dict."""

    def __init__(self, fin, fout, names, r=4):
        super().__init__()
        self.base = nn.Linear(fin, fout)
        self.lora_A = nn.ModuleDict({n: nn.Linear(fin, r, bias=False) for n in names})
        self.lora_B = nn.ModuleDict({n: nn.Linear(r, fout, bias=False) for n in names})
        self.scaling = {n: 2.0 for n in names}
        self.active_adapter = names[0]
        self.disable_adapters = False

    def forward(self, x):
        result = self.base(x)
        if self.disable_adapters or self.active_adapter not in self.lora_A:
            return result
        a = self.lora_A[self.active_adapter]
        b = self.lora_B[self.active_adapter]
        return result + b(a(x)) * self.scaling[self.active_adapter]
