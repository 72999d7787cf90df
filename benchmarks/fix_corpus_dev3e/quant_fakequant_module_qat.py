# spec: {"model": "quant_fakequant_module_qat.py:QATLinear", "init": {"args": [8, 8]}, "inputs": [{"tensor": [4, 8]}]}
import torch
from torch import nn
from torch.ao.quantization import FakeQuantize, MovingAverageMinMaxObserver


class QATLinear(nn.Module):
    """Quantisation-aware-training linear layer: activations and weights pass eager-mode
    FakeQuantize modules (moving-average min/max observers) built by hand."""

    def __init__(self, fin, fout):
        super().__init__()
        self.linear = nn.Linear(fin, fout)
        self.act_fq = FakeQuantize(observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255)
        self.weight_fq = FakeQuantize(
            observer=MovingAverageMinMaxObserver,
            quant_min=-128,
            quant_max=127,
            dtype=torch.qint8,
            qscheme=torch.per_tensor_symmetric,
        )

    def forward(self, x):
        x = self.act_fq(x)
        w = self.weight_fq(self.linear.weight)
        return nn.functional.linear(x, w, self.linear.bias)
