# spec: {"model": "ocr_crnn_greedy_strings.py:CRNN", "init": {"args": []}, "inputs": [{"tensor": [2, 1, 32, 64]}]}
import string

import torch
from torch import nn


class CRNN(nn.Module):
    """CRNN text recogniser (conv features, per-column classifier) that decodes CTC output to strings in forward."""

    def __init__(self, alphabet=string.digits + string.ascii_lowercase):
        super().__init__()
        self.alphabet = alphabet
        self.cnn = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d((2, 1)),
        )
        self.head = nn.Linear(64 * 8, len(alphabet) + 1)

    def decode(self, idx):
        texts = []
        for row in idx.tolist():
            chars, prev = [], 0
            for k in row:
                if k != prev and k != 0:
                    chars.append(self.alphabet[k - 1])
                prev = k
            texts.append("".join(chars))
        return texts

    def forward(self, img):
        f = self.cnn(img)
        b, c, h, w = f.shape
        logits = self.head(f.permute(0, 3, 1, 2).reshape(b, w, c * h))
        log_probs = logits.log_softmax(-1)
        return log_probs, self.decode(log_probs.argmax(-1))
