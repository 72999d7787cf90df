# spec: {"model": "shp_fcos_pos_inds_loss.py:FCOSLossHead", "init": {"args": [8, 3]}, "inputs": [{"tensor": [2, 8, 4, 4]}, {"tensor": [2, 16], "dtype": "int64", "data": [[3, 3, 0, 3, 1, 3, 3, 3, 2, 3, 3, 0, 3, 3, 3, 1], [3, 1, 3, 3, 3, 3, 2, 3, 3, 3, 0, 3, 3, 3, 3, 3]]}, {"tensor": [2, 16, 4], "init": "rand"}, {"tensor": [2, 16], "init": "rand"}]}
import torch
import torch.nn as nn
import torch.nn.functional as F


class FCOSLossHead(nn.Module):
    """mmdet FCOSHead.loss_by_feat: positives are the points whose label is a real class (the
    background index is ``num_classes``); box and centerness losses are gathered at ``pos_inds``
    and summed, normalised by the number of positives."""

    def __init__(self, in_channels, num_classes):
        super().__init__()
        self.num_classes = num_classes
        self.conv_cls = nn.Conv2d(in_channels, num_classes, 3, padding=1)
        self.conv_reg = nn.Conv2d(in_channels, 4, 3, padding=1)
        self.conv_centerness = nn.Conv2d(in_channels, 1, 3, padding=1)

    def forward(self, feats, labels, bbox_targets, centerness_targets):
        cls_score = self.conv_cls(feats)
        bbox_pred = self.conv_reg(feats).float().exp()
        centerness = self.conv_centerness(feats)
        flatten_cls_scores = cls_score.permute(0, 2, 3, 1).reshape(-1, self.num_classes)
        flatten_bbox_preds = bbox_pred.permute(0, 2, 3, 1).reshape(-1, 4)
        flatten_centerness = centerness.permute(0, 2, 3, 1).reshape(-1)
        flatten_labels = labels.reshape(-1)
        flatten_bbox_targets = bbox_targets.reshape(-1, 4)
        flatten_centerness_targets = centerness_targets.reshape(-1)

        bg_class_ind = self.num_classes
        pos_inds = ((flatten_labels >= 0) & (flatten_labels < bg_class_ind)).nonzero().reshape(-1)
        num_pos = max(len(pos_inds), 1.0)
        cls_targets = F.one_hot(flatten_labels, self.num_classes + 1)[:, : self.num_classes].float()
        loss_cls = F.binary_cross_entropy_with_logits(flatten_cls_scores, cls_targets, reduction="sum") / num_pos

        pos_bbox_preds = flatten_bbox_preds[pos_inds]
        pos_bbox_targets = flatten_bbox_targets[pos_inds]
        pos_centerness = flatten_centerness[pos_inds]
        pos_centerness_targets = flatten_centerness_targets[pos_inds]
        loss_bbox = F.smooth_l1_loss(pos_bbox_preds, pos_bbox_targets, reduction="sum") / num_pos
        loss_centerness = F.binary_cross_entropy_with_logits(pos_centerness, pos_centerness_targets, reduction="sum") / num_pos
        return loss_cls + loss_bbox + loss_centerness
