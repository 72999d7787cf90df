# spec: {"model": "c4_tuple_namedtuple_outputs.py:DeepSupervisionNet", "init": {"args": [3, 4]}, "inputs": [{"tensor": [2, 3, 16, 16]}], "kwargs": {"return_aux": true}, "calls": 3}
from collections import namedtuple

import torch.nn.functional as F
from torch import nn

SegOutput = namedtuple("SegOutput", ["logits", "aux_logits", "features"])


class DeepSupervisionNet(nn.Module):
    """A segmentation net with deep supervision (PSPNet/HRNet style): a namedtuple out, the
    aux head optional by a keyword, the features as a dict keyed by stage name."""

    def __init__(self, in_ch, num_classes, widths=(8, 16)):
        super().__init__()
        self.stages = nn.ModuleDict()
        prev = in_ch
        for i, w in enumerate(widths):
            self.stages[f"stage{i + 1}"] = nn.Sequential(nn.Conv2d(prev, w, 3, stride=2, padding=1), nn.BatchNorm2d(w), nn.ReLU(inplace=True))
            prev = w
        self.head = nn.Conv2d(prev, num_classes, 1)
        self.aux_head = nn.Conv2d(widths[0], num_classes, 1)

    def forward(self, x, return_aux=False):
        input_size = x.shape[-2:]
        features = {}
        for name, stage in self.stages.items():
            x = stage(x)
            features[name] = x
        logits = F.interpolate(self.head(x), size=input_size, mode="bilinear", align_corners=False)
        aux = None
        if return_aux:
            aux = F.interpolate(self.aux_head(features["stage1"]), size=input_size, mode="bilinear", align_corners=False)
        return SegOutput(logits, aux, features)
