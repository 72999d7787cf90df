"""kornia: random affine and perspective augmentation in the training forward."""

import torch
import kornia.augmentation as K


class Augmented(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.affine = K.RandomAffine(degrees=15.0, translate=(0.1, 0.1), p=1.0)
        self.persp = K.RandomPerspective(distortion_scale=0.3, p=0.5)
        self.body = torch.nn.Conv2d(3, 8, 3)

    def forward(self, img):
        img = self.affine(img)
        img = self.persp(img)
        return self.body(img).mean((2, 3))


def make():
    torch.manual_seed(0)
    return Augmented(), (torch.rand(2, 3, 16, 16),)
