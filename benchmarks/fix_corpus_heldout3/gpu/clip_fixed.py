"""`clip.py` fixed by hand: the same modules in the same order (same seed, same weights), the same outputs.

- the temperature cap is `clamp(max=...)` on the tensor (no `.item()`);
- InfoNCE is the cross-entropy of the similarity matrix with the diagonal as the target, which is
  what the SimCLR-style gather computes (the positive's logit against all others in its row);
- the recall@1 log, its lock included, runs only in eager (compiled calls do not append).
"""

import threading

import torch
import torch.nn.functional as F
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim, heads, causal):
        super().__init__()
        self.heads = heads
        self.causal = causal
        self.in_proj = nn.Linear(dim, 3 * dim)
        self.out_proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.in_proj(x).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)
        return self.out_proj(y.transpose(1, 2).reshape(b, n, d))


class QuickGELU(nn.Module):
    def forward(self, x):
        return x * torch.sigmoid(1.702 * x)


class ResidualAttentionBlock(nn.Module):
    def __init__(self, dim, heads, causal=False, mlp_ratio=4):
        super().__init__()
        self.ln_1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, heads, causal)
        self.ln_2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(
            nn.Linear(dim, dim * mlp_ratio), QuickGELU(), nn.Linear(dim * mlp_ratio, dim)
        )

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class VisionTransformer(nn.Module):
    def __init__(self, image_size, patch, width, layers, heads, embed_dim):
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, kernel_size=patch, stride=patch, bias=False)
        scale = width**-0.5
        self.class_embedding = nn.Parameter(scale * torch.randn(width))
        self.positional_embedding = nn.Parameter(
            scale * torch.randn((image_size // patch) ** 2 + 1, width)
        )
        self.ln_pre = nn.LayerNorm(width)
        self.blocks = nn.ModuleList([ResidualAttentionBlock(width, heads) for _ in range(layers)])
        self.ln_post = nn.LayerNorm(width)
        self.proj = nn.Parameter(scale * torch.randn(width, embed_dim))

    def forward(self, x):
        x = self.conv1(x).flatten(2).transpose(1, 2)
        cls = self.class_embedding.to(x.dtype).expand(x.shape[0], 1, -1)
        x = torch.cat([cls, x], dim=1) + self.positional_embedding.to(x.dtype)
        x = self.ln_pre(x)
        for block in self.blocks:
            x = block(x)
        return self.ln_post(x[:, 0]) @ self.proj


class TextTransformer(nn.Module):
    def __init__(self, vocab, context, width, layers, heads, embed_dim):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab, width)
        self.positional_embedding = nn.Parameter(torch.randn(context, width) * 0.01)
        self.blocks = nn.ModuleList(
            [ResidualAttentionBlock(width, heads, causal=True) for _ in range(layers)]
        )
        self.ln_final = nn.LayerNorm(width)
        self.text_projection = nn.Parameter(torch.randn(width, embed_dim) * width**-0.5)

    def forward(self, text):
        x = self.token_embedding(text) + self.positional_embedding[: text.shape[1]]
        for block in self.blocks:
            x = block(x)
        x = self.ln_final(x)
        # features at the end-of-text token (the highest id in each sequence)
        return (
            x[torch.arange(x.shape[0], device=x.device), text.argmax(dim=-1)] @ self.text_projection
        )


class CLIP(nn.Module):
    def __init__(
        self,
        embed_dim=512,
        image_size=224,
        patch=32,
        vision_width=512,
        vision_layers=8,
        vision_heads=8,
        vocab=8192,
        context=77,
        text_width=512,
        text_layers=8,
        text_heads=8,
        max_logit_scale=100.0,
    ):
        super().__init__()
        self.visual = VisionTransformer(
            image_size, patch, vision_width, vision_layers, vision_heads, embed_dim
        )
        self.text = TextTransformer(vocab, context, text_width, text_layers, text_heads, embed_dim)
        self.logit_scale = nn.Parameter(torch.tensor(4.7))  # exp(4.7) ~ 110: over the cap
        self.max_logit_scale = max_logit_scale
        self.retrieval_log = []
        self._log_lock = threading.Lock()

    def info_nce(self, logits):
        labels = torch.arange(logits.shape[0], device=logits.device)
        return F.cross_entropy(logits.float(), labels)

    def forward(self, image, text):
        image_features = F.normalize(self.visual(image), dim=-1)
        text_features = F.normalize(self.text(text), dim=-1)
        logit_scale = self.logit_scale.exp().clamp(max=self.max_logit_scale)
        logits_per_image = logit_scale * image_features @ text_features.t()
        logits_per_text = logits_per_image.t()
        loss = (self.info_nce(logits_per_image) + self.info_nce(logits_per_text)) / 2

        if not torch.compiler.is_compiling():
            target = torch.arange(logits_per_image.shape[0], device=image.device)
            i2t = (logits_per_image.argmax(dim=1) == target).float().mean().item()
            t2i = (logits_per_text.argmax(dim=1) == target).float().mean().item()
            with self._log_lock:
                self.retrieval_log.append({"i2t_r1": i2t, "t2i_r1": t2i})
        return loss, logits_per_image
