# spec: {"model": "hf_whisper_timestamp_head.py:WhisperDecodeStep", "init": {"args": [16, 80]}, "inputs": [{"tensor": [2, 16]}, {"tensor": [2, 6], "dtype": "int64", "init": "randint", "low": 40, "high": 80}], "calls": 2}
import torch
from torch import nn


# vendored from transformers 5.24.0 transformers/generation/logits_process.py
class WhisperTimeStampLogitsProcessor:
    r"""
    [`LogitsProcessor`] that modifies the logits for the generation of timestamps in the transcription. When the input
    tokens are at a specific threshold, the processor sets the scores to negative infinity. The processor makes sure
    that timestamp tokens appear in pairs, by masking out the logits that would break this pairing pattern.
    """

    def __init__(self, generate_config, begin_index, _detect_timestamp_from_logprob=None):
        self.no_timestamps_token_id = generate_config.no_timestamps_token_id
        self.timestamp_begin = generate_config.no_timestamps_token_id + 1
        self.eos_token_id = generate_config.eos_token_id or generate_config.bos_token_id

        # this variable is mostly just used for testing
        self._detect_timestamp_from_logprob = (
            _detect_timestamp_from_logprob
            if _detect_timestamp_from_logprob is not None
            else getattr(generate_config, "_detect_timestamp_from_logprob", True)
        )
        self.begin_index = begin_index
        self.max_initial_timestamp_index = getattr(generate_config, "max_initial_timestamp_index", None)

    def __call__(self, input_ids: torch.LongTensor, scores: torch.Tensor) -> torch.Tensor:
        # suppress <|notimestamps|> which is handled by without_timestamps
        scores_processed = scores.clone()
        scores_processed[:, self.no_timestamps_token_id] = -float("inf")

        # timestamps have to appear in pairs, except directly before eos_token; mask logits accordingly
        timestamps_last = []
        for k, seq in enumerate(input_ids.tolist()):
            seq = seq[self.begin_index :]

            last_was_timestamp = len(seq) >= 1 and seq[-1] >= self.timestamp_begin
            penultimate_was_timestamp = len(seq) < 2 or seq[-2] >= self.timestamp_begin

            if last_was_timestamp:
                if penultimate_was_timestamp:  # has to be non-timestamp
                    scores_processed[k, self.timestamp_begin :] = -float("inf")
                else:  # cannot be normal text tokens
                    scores_processed[k, : self.eos_token_id] = -float("inf")

            timestamp_last = self.timestamp_begin  # no timestamp is forbidden until one is sampled
            timestamps = [token for token in seq if token >= self.timestamp_begin]
            if timestamps:
                # `timestamps` shouldn't decrease; forbid timestamp tokens smaller than the last
                if last_was_timestamp and not penultimate_was_timestamp:
                    timestamp_last = timestamps[-1]
                else:
                    # Avoid to emit <|0.00|> again
                    timestamp_last = timestamps[-1] + 1
            timestamps_last.append(timestamp_last)

        # Forbid the timestamps below each row's `timestamp_last`
        vocab_ids = torch.arange(scores_processed.shape[-1], device=scores_processed.device)
        timestamps_last = torch.tensor(timestamps_last, device=scores_processed.device).unsqueeze(-1)
        scores_processed.masked_fill_(
            (vocab_ids >= self.timestamp_begin) & (vocab_ids < timestamps_last), -float("inf")
        )

        # apply the `max_initial_timestamp` option
        if input_ids.shape[1] == self.begin_index:
            scores_processed[:, : self.timestamp_begin] = -float("inf")

            if self.max_initial_timestamp_index is not None:
                last_allowed = self.timestamp_begin + self.max_initial_timestamp_index
                scores_processed[:, last_allowed + 1 :] = -float("inf")

        # if sum of probability over timestamps is above any other token, sample timestamp
        if self._detect_timestamp_from_logprob:
            logprobs = torch.nn.functional.log_softmax(scores_processed.float(), dim=-1)
            timestamp_logprob = logprobs[:, self.timestamp_begin :].logsumexp(dim=-1)
            max_text_token_logprob = logprobs[:, : self.timestamp_begin].max(dim=-1).values
            sample_timestamp = (timestamp_logprob > max_text_token_logprob).unsqueeze(-1)
            scores_processed[:, : self.timestamp_begin].masked_fill_(sample_timestamp, -float("inf"))

        return scores_processed


class WhisperGenerationConfigLite:
    eos_token_id = 50
    bos_token_id = 49
    no_timestamps_token_id = 60
    max_initial_timestamp_index = 5


class WhisperDecodeStep(nn.Module):
    """One decoding step of a Whisper-style decoder: project, then apply the timestamp rules."""

    def __init__(self, d_model=16, vocab_size=80, begin_index=2):
        super().__init__()
        self.proj_out = nn.Linear(d_model, vocab_size, bias=False)
        self.timestamp_rules = WhisperTimeStampLogitsProcessor(WhisperGenerationConfigLite(), begin_index)

    def forward(self, last_hidden, input_ids):
        scores = self.proj_out(last_hidden)
        scores = self.timestamp_rules(input_ids, scores)
        return torch.log_softmax(scores, dim=-1)
