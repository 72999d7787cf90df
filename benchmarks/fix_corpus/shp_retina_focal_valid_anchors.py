# spec: {"model": "shp_retina_focal_valid_anchors.py:RetinaClassificationHead", "init": {"args": [16, 4, 3]}, "inputs": [{"tensor": [2, 16, 3, 3]}, {"tensor": [2, 27], "dtype": "int64", "data": [[-1, -1, 0, -1, 3, 3, 3, 2, -1, -1, 3, -2, 2, 2, -2, 3, 0, -1, -1, 1, -2, -2, -2, -2, 2, -1, 2], [-2, -1, 3, 3, -1, 1, -1, -1, 3, 0, -2, 2, -1, -1, 0, -1, 1, 2, -1, 0, 0, 3, 2, -2, 3, -1, 2]]}]}
import torch
import torch.nn as nn
import torch.nn.functional as F


def sigmoid_focal_loss(inputs, targets, alpha: float = 0.25, gamma: float = 2, reduction: str = "none"):
    """fvcore / torchvision.ops.sigmoid_focal_loss (RetinaNet's focal loss)."""
    p = torch.sigmoid(inputs)
    ce_loss = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce_loss * ((1 - p_t) ** gamma)
    if alpha >= 0:
        alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
        loss = alpha_t * loss
    if reduction == "mean":
        loss = loss.mean()
    elif reduction == "sum":
        loss = loss.sum()
    return loss


class RetinaClassificationHead(nn.Module):
    """torchvision RetinaNetClassificationHead.compute_loss: the focal loss is summed over the anchors
    that are not between the IoU thresholds (matched index -2) and normalised by the foregrounds."""

    BETWEEN_THRESHOLDS = -2

    def __init__(self, in_channels, num_classes, num_anchors):
        super().__init__()
        self.num_classes = num_classes
        self.num_anchors = num_anchors
        self.cls_logits = nn.Conv2d(in_channels, num_anchors * num_classes, kernel_size=3, padding=1)

    def forward(self, features, matched_idxs):
        N, _, H, W = features.shape
        cls_logits = self.cls_logits(features)
        cls_logits = cls_logits.view(N, self.num_anchors, self.num_classes, H, W)
        cls_logits = cls_logits.permute(0, 3, 4, 1, 2).reshape(N, -1, self.num_classes)
        losses = []
        for cls_logits_per_image, matched_idxs_per_image in zip(cls_logits, matched_idxs):
            foreground_idxs_per_image = matched_idxs_per_image >= 0
            num_foreground = foreground_idxs_per_image.sum()
            gt_classes_target = F.one_hot(matched_idxs_per_image.clamp(min=0) % self.num_classes, self.num_classes)
            gt_classes_target = gt_classes_target.to(cls_logits_per_image.dtype) * foreground_idxs_per_image[:, None]
            valid_idxs_per_image = matched_idxs_per_image != self.BETWEEN_THRESHOLDS
            losses.append(
                sigmoid_focal_loss(
                    cls_logits_per_image[valid_idxs_per_image],
                    gt_classes_target[valid_idxs_per_image],
                    reduction="sum",
                )
                / num_foreground.clamp(min=1)
            )
        return sum(losses) / len(losses)
