# spec: {"model": "ml_large_margin_softmax.py:FaceEmbedderWithLSoftmax", "init": {"args": [8, 6, 4]}, "inputs": [{"tensor": [6, 8]}, {"tensor": [6], "dtype": "int64", "data": [0, 1, 2, 3, 1, 0]}], "calls": 2}
import math

import numpy as np
import scipy.special
import torch
import torch.nn.functional as F
from torch import nn


# vendored from pytorch-metric-learning 2.9.0 pytorch_metric_learning/losses/large_margin_softmax_loss.py
class LargeMarginSoftmaxLoss(nn.Module):
    """
    Implementation of https://arxiv.org/pdf/1612.02295.pdf
    """

    def __init__(self, num_classes, embedding_size, margin=4, scale=1):
        super().__init__()
        self.margin = margin
        self.num_classes = num_classes
        self.scale = scale
        self.W = nn.Parameter(torch.Tensor(embedding_size, num_classes))
        nn.init.kaiming_uniform_(self.W, a=math.sqrt(5))
        self.init_margin()
        self.cross_entropy = torch.nn.CrossEntropyLoss(reduction="none")

    def init_margin(self):
        self.margin = int(self.margin)
        self.max_n = self.margin // 2
        ## For the trigonometric multiple-angle formula ##
        self.n_range = torch.tensor([n for n in range(0, self.max_n + 1)])
        self.margin_choose_n = torch.tensor(
            [scipy.special.binom(self.margin, 2 * n) for n in self.n_range]
        )
        self.cos_powers = torch.tensor([self.margin - (2 * n) for n in self.n_range])
        self.alternating = torch.tensor([(-1) ** n for n in self.n_range])

    def get_cos_with_margin(self, cosine):
        cosine = cosine.unsqueeze(1)
        cos_powered = cosine**self.cos_powers
        sin_powered = (1 - cosine**2) ** self.n_range
        terms = (
            self.alternating * self.margin_choose_n * cos_powered * sin_powered
        )  # Equation 7 in the paper
        return torch.sum(terms, dim=1)

    def get_cosine(self, embeddings):
        return F.normalize(embeddings, dim=1) @ F.normalize(self.W, dim=0)

    def get_angles(self, cosine_of_target_classes):
        angles = torch.acos(torch.clamp(cosine_of_target_classes, -1, 1))
        return angles

    def get_target_mask(self, embeddings, labels):
        batch_size = labels.size(0)
        mask = torch.zeros(
            batch_size,
            self.num_classes,
            dtype=embeddings.dtype,
            device=embeddings.device,
        )
        mask[torch.arange(batch_size), labels] = 1
        return mask

    def modify_cosine_of_target_classes(self, cosine_of_target_classes):
        cos_with_margin = self.get_cos_with_margin(cosine_of_target_classes)
        angles = self.get_angles(cosine_of_target_classes)
        with torch.no_grad():
            k = (
                angles / (math.pi / self.margin)
            ).floor()  # Equation 6: angles needs to be between [k*pi/m and (k+1)*pi/m]
        return ((-1) ** k) * cos_with_margin - (2 * k)

    def scale_logits(self, logits, embeddings):
        embedding_norms = torch.norm(embeddings, p=2, dim=1)
        weight_norms = torch.norm(self.W, p=2, dim=0)
        product_of_magnitudes = weight_norms.unsqueeze(0) * embedding_norms.unsqueeze(1)
        return logits * product_of_magnitudes * self.scale

    def cast_types(self, dtype, device):
        self.n_range = self.n_range.to(device=device, dtype=dtype)
        self.margin_choose_n = self.margin_choose_n.to(device=device, dtype=dtype)
        self.cos_powers = self.cos_powers.to(device=device, dtype=dtype)
        self.alternating = self.alternating.to(device=device, dtype=dtype)

    def forward(self, embeddings, labels):
        dtype, device = embeddings.dtype, embeddings.device
        self.cast_types(dtype, device)
        mask = self.get_target_mask(embeddings, labels)
        cosine = self.get_cosine(embeddings)
        cosine_of_target_classes = cosine[mask == 1]
        modified_cosine_of_target_classes = self.modify_cosine_of_target_classes(
            cosine_of_target_classes
        )
        diff = (modified_cosine_of_target_classes - cosine_of_target_classes).unsqueeze(
            1
        )
        logits = cosine + (mask * diff)
        logits = self.scale_logits(logits, embeddings)
        unweighted_loss = self.cross_entropy(logits, labels)
        return torch.mean(unweighted_loss)


class FaceEmbedderWithLSoftmax(nn.Module):
    def __init__(self, in_dim, emb_dim, num_classes):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, emb_dim), nn.BatchNorm1d(emb_dim))
        self.loss = LargeMarginSoftmaxLoss(num_classes, emb_dim, margin=4)

    def forward(self, x, labels):
        return self.loss(self.backbone(x), labels)
