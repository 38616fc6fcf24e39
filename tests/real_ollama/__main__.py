"""Serve the real small models in the foreground, to drive Hippo against them by hand.

python -m tests.real_ollama --port 11500
OLLAMA_HOST=http://127.0.0.1:11500 HIPPO_DATA_DIR=/tmp/hippo-real \\
    hippo models use --chat smollm2:135m --embedding multilingual-e5-small
"""

from __future__ import annotations

import argparse
import sys
import threading

from tests.real_ollama.models import missing
from tests.real_ollama.server import CHAT_MODEL, EMBEDDING_MODEL, RealOllama


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m tests.real_ollama",
        description="An Ollama-protocol server on 127.0.0.1 over SmolLM2-135M (chat, tools) "
        "and multilingual-e5-small (embeddings).",
    )
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
    lacking = missing()
    if lacking:
        print(f"real_ollama: {lacking}", file=sys.stderr)
        return 1
    server = RealOllama(
        port=args.port,
        n_ctx=args.ctx,
        max_tokens=args.max_tokens,
        thinking=args.thinking,
        threads=args.threads,
        verbose=args.verbose,
    )
    host = server.start()
    print(f"Real Ollama on {host}: {CHAT_MODEL}, {EMBEDDING_MODEL} (Ctrl-C to stop)", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
