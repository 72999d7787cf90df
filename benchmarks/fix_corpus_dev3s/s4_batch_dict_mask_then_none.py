# spec: {"model": "s4_batch_dict_mask_then_none.py:TokenClassifier", "init": {"args": [8]}, "inputs": [{"dict": {"input_embeds": {"tensor": [2, 5, 8]}, "attention_mask": {"tensor": [2, 5]}}}], "variants": [{"inputs": [{"dict": {"input_embeds": {"tensor": [2, 5, 8]}, "attention_mask": null}}]}]}
from torch import nn


class TokenClassifier(nn.Module):
    """A collator's batch dict whose `attention_mask` is None for unpadded batches."""

    def __init__(self, dim, num_labels=4):
        super().__init__()
        self.encoder = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, num_labels)

    def forward(self, batch):
        h = self.encoder(batch["input_embeds"]).relu()
        mask = batch["attention_mask"]
        if mask is not None:
            h = h * mask.unsqueeze(-1)
        return self.head(h)
