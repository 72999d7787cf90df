# spec: {"model": "s4_return_dict_flag.py:ViTForClassification", "init": {"args": [8]}, "inputs": [{"tensor": [2, 5, 8]}], "kwargs": {"return_dict": true}, "variants": [{"inputs": [{"tensor": [2, 5, 8]}], "kwargs": {"return_dict": false}}]}
from torch import nn


class ViTForClassification(nn.Module):
    """A HF-style head whose output is a dict or a tuple by `return_dict`."""

    def __init__(self, dim, num_labels=3):
        super().__init__()
        self.layernorm = nn.LayerNorm(dim)
        self.classifier = nn.Linear(dim, num_labels)

    def forward(self, sequence_output, return_dict=True):
        sequence_output = self.layernorm(sequence_output)
        logits = self.classifier(sequence_output[:, 0, :])
        if not return_dict:
            return (logits, sequence_output)
        return {"logits": logits, "hidden_states": sequence_output}
