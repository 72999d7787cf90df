# spec: {"model": "tv_anchor_gen.py:RPNHeadWithAnchors", "inputs": [{"tensor": [1, 8, 4, 4]}]}
import torch
from torch import nn


class AnchorGenerator(nn.Module):
    def __init__(self, sizes=(32, 64), aspect_ratios=(0.5, 1.0, 2.0)):
        super().__init__()
        scales = torch.as_tensor(sizes, dtype=torch.float32)
        ratios = torch.as_tensor(aspect_ratios, dtype=torch.float32)
        h_ratios = torch.sqrt(ratios)
        w_ratios = 1 / h_ratios
        ws = (w_ratios[:, None] * scales[None, :]).view(-1)
        hs = (h_ratios[:, None] * scales[None, :]).view(-1)
        self.register_buffer("cell_anchors", (torch.stack([-ws, -hs, ws, hs], dim=1) / 2).round())

    def forward(self, feature_map, stride):
        grid_height, grid_width = feature_map.shape[-2:]
        shifts_x = torch.arange(0, grid_width, dtype=torch.float32) * stride
        shifts_y = torch.arange(0, grid_height, dtype=torch.float32) * stride
        shift_y, shift_x = torch.meshgrid(shifts_y, shifts_x, indexing="ij")
        shifts = torch.stack((shift_x.reshape(-1), shift_y.reshape(-1)) * 2, dim=1)
        return (shifts.view(-1, 1, 4) + self.cell_anchors.view(1, -1, 4)).reshape(-1, 4)


class RPNHeadWithAnchors(nn.Module):
    def __init__(self, in_channels=8, num_anchors=6):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, in_channels, 3, padding=1)
        self.cls_logits = nn.Conv2d(in_channels, num_anchors, 1)
        self.bbox_pred = nn.Conv2d(in_channels, num_anchors * 4, 1)
        self.anchor_generator = AnchorGenerator()

    def forward(self, features):
        t = torch.relu(self.conv(features))
        objectness = self.cls_logits(t).flatten(1)
        deltas = self.bbox_pred(t).view(t.size(0), -1, 4)
        anchors = self.anchor_generator(features, 16)
        keep = objectness[0].topk(8).indices.tolist()
        boxes = anchors[keep] + deltas[0, keep]
        return boxes, objectness
