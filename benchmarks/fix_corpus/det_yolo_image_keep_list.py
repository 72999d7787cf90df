# spec: {"model": "det_yolo_image_keep_list.py:YoloPostProcess", "init": {"args": [8, 3]}, "inputs": [{"tensor": [2, 8, 4, 4], "init": "randn"}]}
import torch
from torch import nn


class YoloPostProcess(nn.Module):
    """YOLOv5 `non_max_suppression`-style post-processing: per image, the candidates above the
    confidence threshold are selected with a boolean mask and appended to a list of per-image
    detections (each image keeps as many boxes as its scores pass)."""

    def __init__(self, ch, num_classes, conf_thres=0.25):
        super().__init__()
        self.conf_thres = conf_thres
        self.head = nn.Conv2d(ch, 5 + num_classes, 1)

    def forward(self, feats):
        pred = self.head(feats).flatten(2).transpose(1, 2).sigmoid()
        output = []
        for xi, x in enumerate(pred):
            x = x[x[:, 4] > self.conf_thres]
            conf, j = (x[:, 5:] * x[:, 4:5]).max(1, keepdim=True)
            output.append(torch.cat((x[:, :4], conf, j.float()), 1))
        return output
