# spec: {"model": "sam_stability_score_filter.py:MaskDecoderLite", "init": {"args": [32, 4]}, "inputs": [{"tensor": [1, 32, 8, 8]}]}
import torch
from torch import nn


def stability_score(mask_logits, threshold, offset):
    inter = (mask_logits > (threshold + offset)).sum((-1, -2), dtype=torch.int32)
    union = (mask_logits > (threshold - offset)).sum((-1, -2), dtype=torch.int32)
    return inter / union.clamp(min=1)


class MaskDecoderLite(nn.Module):
    """SAM-style multi-mask output; low-stability masks are filtered before returning."""

    def __init__(self, dim, num_masks):
        super().__init__()
        self.mask_head = nn.Conv2d(dim, num_masks, 1)
        self.iou_head = nn.Linear(dim, num_masks)
        self.pred_iou_thresh = 0.2
        self.stability_thresh = 0.5

    def forward(self, image_embedding):
        masks = self.mask_head(image_embedding)[0]
        iou_pred = self.iou_head(image_embedding.mean((2, 3)))[0].sigmoid()
        keep_mask = iou_pred > self.pred_iou_thresh
        masks, iou_pred = masks[keep_mask], iou_pred[keep_mask]
        stab = stability_score(masks, 0.0, 1.0)
        keep_mask = stab >= self.stability_thresh
        return masks[keep_mask] > 0.0, iou_pred[keep_mask], stab[keep_mask]
