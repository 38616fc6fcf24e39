"""An export sealed with a passphrase: scrypt to stretch it, ChaCha20-Poly1305 to seal.

Both come from ``cryptography`` (pyca), which keeps them audited and wheels for every
platform. The file is one line naming the format, one line of JSON with the KDF's
parameters, salt and nonce (authenticated with the text, so none can be swapped), then
the ciphertext. A wrong passphrase and a damaged file both fail the tag check: nothing
half-decrypted is ever read.
"""

from __future__ import annotations

import base64
import json
import os

from assistant.errors import InvalidInput

__all__ = ["MIN_PASSPHRASE", "is_sealed", "seal", "unseal"]

MAGIC = b"hippo-sealed-export 1\n"
MIN_PASSPHRASE = 8
# scrypt at n=2**17, r=8: 128 MiB and about half a second per try, as OWASP advises.
_COST = 1 << 17


def is_sealed(blob: bytes) -> bool:
    """Whether ``blob`` is a sealed export (by its first line)."""
    return blob.startswith(MAGIC)


def _key(passphrase: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

    kdf = Scrypt(salt=salt, length=32, n=n, r=r, p=p)
    return kdf.derive(passphrase.encode("utf-8"))


def seal(text: str, passphrase: str, *, cost: int = _COST) -> bytes:
    """``text`` encrypted under ``passphrase``.

    Raises:
        HippoError: the passphrase is shorter than `MIN_PASSPHRASE` characters.
    """
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

    if len(passphrase) < MIN_PASSPHRASE:
        raise InvalidInput(
            f"That passphrase is too short: use at least {MIN_PASSPHRASE} characters; "
            "nothing was written."
        )
    salt, nonce = os.urandom(16), os.urandom(12)
    header = {
        "kdf": "scrypt",
        "n": cost,
        "r": 8,
        "p": 1,
        "salt": base64.b64encode(salt).decode(),
        "cipher": "chacha20-poly1305",
        "nonce": base64.b64encode(nonce).decode(),
    }
    head = MAGIC + json.dumps(header).encode() + b"\n"
    key = _key(passphrase, salt, cost, 8, 1)
    return head + ChaCha20Poly1305(key).encrypt(nonce, text.encode("utf-8"), head)


def unseal(blob: bytes, passphrase: str) -> str:
    """The text a sealed export holds.

    Raises:
        HippoError: the passphrase is wrong, or the file is damaged or not a sealed export.
    """
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

    try:
        line_end = blob.index(b"\n", len(MAGIC))
        head, body = blob[: line_end + 1], blob[line_end + 1 :]
        header = json.loads(head[len(MAGIC) :])
        salt = base64.b64decode(header["salt"])
        nonce = base64.b64decode(header["nonce"])
        key = _key(passphrase, salt, int(header["n"]), int(header["r"]), int(header["p"]))
        return ChaCha20Poly1305(key).decrypt(nonce, body, head).decode("utf-8")
    except InvalidTag:
        raise InvalidInput(
            "The passphrase does not open this export (or the file is damaged). Try again "
            "with the passphrase it was exported with; nothing was imported."
        ) from None
    except (ValueError, KeyError, TypeError) as exc:
        raise InvalidInput(
            f"This sealed export is damaged ({exc}); nothing was imported."
        ) from None
