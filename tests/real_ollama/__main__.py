"""Serve the real small models in the foreground, to drive Hippo against them by hand.

python -m tests.real_ollama --port 11500 [--gguf PATH [--name NAME] [--chat-template FILE]]
OLLAMA_HOST=http://127.0.0.1:11500 HIPPO_DATA_DIR=/tmp/hippo-real \\
    hippo model use --chat smollm2:135m --embedding multilingual-e5-small

Install what it needs with `python -m tests.real_ollama.install` (see that module).
"""

from __future__ import annotations

import argparse
import sys
import threading

from tests.real_ollama.check import crash_test
from tests.real_ollama.models import ModelRefused, missing
from tests.real_ollama.options import add_model_options, chat_model_from
from tests.real_ollama.server import EMBEDDING_MODEL, RealOllama


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m tests.real_ollama",
        description="An Ollama-protocol server on 127.0.0.1 over a chat GGUF (SmolLM2-135M "
        "unless --gguf; chat, tools) and multilingual-e5-small (embeddings).",
    )
    add_model_options(parser)
    parser.add_argument("--port", type=int, default=11434, help="port to bind (0: any free one)")
    parser.add_argument("--ctx", type=int, default=4096, help="chat context window (tokens)")
    parser.add_argument(
        "--max-tokens", type=int, default=512,
        help="reply cap when a request sets no num_predict",
    )  # fmt: skip
    parser.add_argument("--threads", type=int, default=None, help="CPU threads for generation")
    parser.add_argument(
        "--thinking", action="store_true",
        help="emulate a thinking model: `think` asks for <think>...</think> first",
    )  # fmt: skip
    parser.add_argument("--verbose", action="store_true", help="log each request")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Serve until Ctrl-C."""
    args = _parser().parse_args(argv)
    try:
        model = chat_model_from(args)  # a GGUF's header is read without llama.cpp
    except ModelRefused as exc:
        print(f"real_ollama: {exc}", file=sys.stderr)
        return 1
    lacking = missing(smollm2=False)
    if lacking:
        print(f"real_ollama: {lacking}", file=sys.stderr)
        return 1
    problem = crash_test(model.info.path)
    if problem:
        print(f"real_ollama: {problem}", file=sys.stderr)
        return 1
    server = RealOllama(
        model=model,
        port=args.port,
        n_ctx=args.ctx,
        max_tokens=args.max_tokens,
        thinking=args.thinking,
        threads=args.threads,
        verbose=args.verbose,
    )
    host = server.start()
    chat = server.chat_name
    print(f"Real Ollama on {host}: {chat}, {EMBEDDING_MODEL} (Ctrl-C to stop)", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
