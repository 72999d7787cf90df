# spec: {"model": "seg_panoptic_small_segments.py:PanopticMerge", "init": {"args": [16, 5]}, "inputs": [{"tensor": [1, 16, 16, 16]}]}
import torch
from torch import nn


class PanopticMerge(nn.Module):
    """Panoptic-FPN style merge: semantic argmax, then segments smaller than a minimum area are removed one by one."""

    def __init__(self, in_ch, num_classes, min_area=10):
        super().__init__()
        self.sem_head = nn.Conv2d(in_ch, num_classes, 1)
        self.min_area = min_area

    def forward(self, feats):
        sem = self.sem_head(feats).argmax(1)[0]
        panoptic = torch.zeros_like(sem)
        segments_info = []
        segment_id = 0
        for cls in torch.unique(sem):
            mask = sem == cls
            area = mask.sum().item()
            if area < self.min_area:
                continue
            segment_id += 1
            panoptic[mask] = segment_id
            segments_info.append({"id": segment_id, "category_id": int(cls), "area": area})
        return panoptic, segments_info
