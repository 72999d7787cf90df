# spec: {"model": "det_match_sorted_iou_key.py:GreedyMatcherLoss", "inputs": [{"tensor": [6, 4], "init": "rand"}, {"tensor": [4, 4], "init": "rand"}, {"tensor": [6]}]}
import torch
import torch.nn as nn


def box_iou(a, b):
    a = torch.cat([a[:, :2], a[:, :2] + a[:, 2:]], 1)
    b = torch.cat([b[:, :2], b[:, :2] + b[:, 2:]], 1)
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    inter = (rb - lt).clamp(min=0).prod(-1)
    area_a = (a[:, 2:] - a[:, :2]).prod(-1)
    area_b = (b[:, 2:] - b[:, :2]).prod(-1)
    return inter / (area_a[:, None] + area_b[None] - inter)


class GreedyMatcherLoss(nn.Module):
    """Greedy IoU matching of predictions to ground truth (best pair first), then L1 on matches."""

    def forward(self, pred_boxes, gt_boxes, pred_logits):
        iou = box_iou(pred_boxes, gt_boxes)
        pairs = [(i, j, iou[i, j]) for i in range(iou.size(0)) for j in range(iou.size(1))]
        pairs = sorted(pairs, key=lambda p: p[2], reverse=True)
        used_p, used_g, matches = set(), set(), []
        for i, j, _ in pairs:
            if i in used_p or j in used_g:
                continue
            used_p.add(i)
            used_g.add(j)
            matches.append((i, j))
        pi = torch.tensor([m[0] for m in matches])
        gi = torch.tensor([m[1] for m in matches])
        l1 = (pred_boxes[pi] - gt_boxes[gi]).abs().sum(-1).mean()
        return l1 + nn.functional.softplus(-pred_logits[pi]).mean()
