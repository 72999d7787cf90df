# spec: {"model": "hf_bert_bio_spans.py:EntityTagger", "inputs": [{"tensor": [2, 10], "dtype": "int64", "init": "randint", "low": 1, "high": 60}]}
import torch
from torch import nn
from transformers import BertConfig, BertForTokenClassification

LABELS = ["O", "B-PER", "I-PER", "B-ORG", "I-ORG"]


class EntityTagger(nn.Module):
    """NER with a tiny BERT token classifier (random weights); BIO tags are merged into entity spans."""

    def __init__(self):
        super().__init__()
        config = BertConfig(
            vocab_size=60, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
            intermediate_size=64, max_position_embeddings=32, num_labels=len(LABELS),
        )
        self.bert = BertForTokenClassification(config)

    def forward(self, input_ids):
        logits = self.bert(input_ids=input_ids).logits
        spans = []
        for row in logits.argmax(-1).tolist():
            start = None
            for i, tag in enumerate(row):
                name = LABELS[tag]
                if name.startswith("B-"):
                    start = i
                elif name == "O" and start is not None:
                    spans.append((start, i))
                    start = None
        return logits, torch.tensor(spans, dtype=torch.long).reshape(-1, 2)
