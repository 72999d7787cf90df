"""kornia: colour space conversions and a histogram equalisation in forward."""

import kornia
import torch


class ColorNet(torch.nn.Module):
    def forward(self, img):
        hsv = kornia.color.rgb_to_hsv(img)
        lab = kornia.color.rgb_to_lab(img)
        eq = kornia.enhance.equalize(img)
        return hsv.mean() + lab.mean() + eq.mean()


def make():
    torch.manual_seed(0)
    return ColorNet(), (torch.rand(1, 3, 16, 16),)
