# spec: {"model": "shp_electra_active_bce.py:ElectraDiscriminatorHead", "init": {"args": [16]}, "inputs": [{"tensor": [2, 7, 16]}, {"tensor": [2, 7], "dtype": "int64", "data": [[1, 1, 1, 1, 1, 0, 0], [1, 1, 1, 0, 0, 0, 0]]}, {"tensor": [2, 7], "dtype": "int64", "data": [[0, 1, 0, 0, 1, 0, 0], [1, 0, 0, 0, 0, 0, 0]]}]}
import torch
import torch.nn as nn


class ElectraDiscriminatorHead(nn.Module):
    """transformers ElectraForPreTraining: replaced-token detection with ``BCEWithLogitsLoss`` on the
    active (non-padding) positions only."""

    def __init__(self, hidden_size):
        super().__init__()
        self.dense = nn.Linear(hidden_size, hidden_size)
        self.dense_prediction = nn.Linear(hidden_size, 1)

    def forward(self, discriminator_hidden_states, attention_mask, labels):
        hidden_states = nn.functional.gelu(self.dense(discriminator_hidden_states))
        logits = self.dense_prediction(hidden_states).squeeze(-1)
        loss_fct = nn.BCEWithLogitsLoss()
        active_loss = attention_mask.view(-1, discriminator_hidden_states.shape[1]) == 1
        active_logits = logits.view(-1, discriminator_hidden_states.shape[1])[active_loss]
        active_labels = labels[active_loss]
        loss = loss_fct(active_logits, active_labels.float())
        return loss, logits
