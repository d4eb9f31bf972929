"""A real GRPO run on the CPU: TRL's `GRPOTrainer` for a few steps on a `tabletest export --format trl` dataset,
with `tabletest.rewards` as its reward functions, then the rewards it logged checked against `tabletest score`'s
judgments of the very completions it generated.

The model is a tiny randomly initialised GPT-2 and the tokenizer a BPE trained here on the dataset's own
prompts, so nothing is downloaded; the point is the plumbing and the rewards, not learning. Generation keeps
to a few answer words (`ANSWER_WORDS`), so the random model's completions are answers, hedges and noise in
turn ("Yes.", "No or yes", "Left. 3"), and the rewards vary.

    tabletest export --dataset out/ --format trl --questions hierarchy --modality text --out exports/trl
    tabletest questions --dataset out/ --text-only --out questions.jsonl
    python scripts/grpo_cpu.py exports/trl --questions questions.jsonl --steps 2 --work grpo-work/

Needs `pip install torch==2.13.0 "trl>=1.16"` (a CPU build of torch). Prints one line per step (TRL's logged
mean of each reward against the mean of `tabletest score`'s judgments) and exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
from pathlib import Path

ANSWER_WORDS = ["Yes", " yes", "No", " no", "Left", " left", "Right", " right", ".", " or", " and", " not", "1", " 2", " 3", " cm"]
CHAT_TEMPLATE = (
    "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}assistant:{% endif %}"
)


def tokenizer_for(texts: list[str]):
    """A byte-level BPE trained on `texts`, with the special tokens and chat template a trainer needs."""
    from tokenizers import Tokenizer, models, pre_tokenizers, decoders, trainers
    from transformers import PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE(unk_token="<unk>"))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=400, special_tokens=["<pad>", "<eos>", "<unk>"]))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, pad_token="<pad>", eos_token="<eos>", unk_token="<unk>")
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


class Recorded:
    """A reward function that keeps what it was asked and what it answered, under the wrapped function's name."""

    def __init__(self, function) -> None:
        self.function, self.__name__ = function, function.__name__
        self.calls: list[tuple[list[str], list, list[float]]] = []

    def __call__(self, completions, qid, **columns) -> list[float]:
        rewards = self.function(completions=completions, qid=qid, **columns)
        self.calls.append((list(qid), list(completions), list(rewards)))
        return rewards


def train(dataset_folder: Path, steps: int, work: Path) -> tuple[list[Recorded], list[dict]]:
    import datasets
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel
    from trl import GRPOConfig, GRPOTrainer

    from tabletest.rewards import accuracy_reward, format_reward

    torch.manual_seed(0)
    dataset = datasets.load_dataset(str(dataset_folder.resolve()), split="train")
    tokenizer = tokenizer_for([m["content"] for row in dataset for m in row["prompt"]] + ["".join(ANSWER_WORDS)] * 50)
    config = GPT2Config(vocab_size=len(tokenizer), n_positions=1024, n_embd=32, n_layer=1, n_head=2,
                        bos_token_id=tokenizer.eos_token_id, eos_token_id=tokenizer.eos_token_id)  # fmt: skip
    rewards = [Recorded(accuracy_reward), Recorded(format_reward)]
    kept = {i for word in ANSWER_WORDS for i in tokenizer.encode(word)} | {tokenizer.eos_token_id}
    args = GRPOConfig(
        output_dir=str(work), use_cpu=True, bf16=False, report_to=[], num_generations=4, per_device_train_batch_size=4,
        max_completion_length=6, max_steps=steps, logging_steps=1, seed=0, save_strategy="no",
        generation_kwargs={"suppress_tokens": [i for i in range(len(tokenizer)) if i not in kept]},
    )  # fmt: skip
    trainer = GRPOTrainer(
        model=GPT2LMHeadModel(config), reward_funcs=rewards, args=args, train_dataset=dataset, processing_class=tokenizer
    )
    trainer.train()
    return rewards, [entry for entry in trainer.state.log_history if "reward" in entry]


def scored(questions: Path, rewards: list[Recorded], work: Path) -> dict[tuple[str, str], dict]:
    """`tabletest score`'s row for every completion the trainer generated (each generation is its own model)."""
    work.mkdir(parents=True, exist_ok=True)
    files = []
    for call, (qids, completions, _) in enumerate(rewards[0].calls):
        path = work / f"call{call}.jsonl"
        with path.open("w") as fh:
            for k, (qid, completion) in enumerate(zip(qids, completions)):
                text = completion if isinstance(completion, str) else "".join(m["content"] for m in completion)
                fh.write(json.dumps({"qid": qid, "response": text, "model": f"c{call}-{k}"}) + "\n")
        files += ["--responses", str(path)]
    command = [sys.executable, "-m", "tabletest.cli", "score", "--prompts", str(questions), *files, "--out", str(work / "report")]
    subprocess.run(command, check=True, capture_output=True, text=True)
    with (work / "report" / "scored.csv").open() as fh:
        return {(row["model"], row["qid"]): row for row in csv.DictReader(fh)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dataset", type=Path, help="a `tabletest export --format trl --modality text` folder")
    parser.add_argument("--questions", type=Path, required=True, help="the same questions from `tabletest questions --text-only`")
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--work", type=Path, default=Path("grpo-work"))
    args = parser.parse_args()
    rewards, logged = train(args.dataset, args.steps, args.work)
    judged = scored(args.questions, rewards, args.work / "score")
    differences = 0
    for step, entry in enumerate(logged):
        line = [f"step {step + 1}:"]
        for reward in rewards:
            qids, completions, values = reward.calls[step]
            if reward.__name__ == "accuracy_reward":
                for k, (qid, value) in enumerate(zip(qids, values)):
                    row = judged[(f"c{step}-{k}", qid)]
                    expected = float(row["mra"]) if row.get("mra") else float(row["status"] == "correct")
                    differences += value != expected
            mean = sum(values) / len(values)
            logged_mean = entry[f"rewards/{reward.__name__}/mean"]
            differences += abs(logged_mean - mean) > 1e-6
            line.append(f"{reward.__name__} logged {logged_mean:.4f}, judged {mean:.4f}")
        print(" ".join(line))
    print(f"{sum(len(r.calls[0][0]) for r in rewards[:1]) * len(logged)} completions, {differences} difference(s)")
    return 1 if differences else 0


if __name__ == "__main__":
    raise SystemExit(main())
