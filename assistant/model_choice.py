"""Checking a model before it is chosen: installed, and able to do its slot's job.

`hippo model use`, the F2 screen and the Settings tab check a choice here before they
save it, so that a typo or a chat model in the embedding slot is refused at once instead
of failing at the next message. The chat slot needs a model that generates text
(Ollama's ``completion`` capability), the embedding slot one that embeds (``embedding``),
as ``/api/show`` reports them. A model whose capabilities Ollama does not report (an
Ollama older than 0.6) is taken on trust.

Each problem is a value, phrased by ``ModelProblem.text`` with the front's own way to
pull a model (`hippo model pull NAME` in the shell, F2 in the app).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from assistant.errors import OllamaError
from assistant.llm.names import base_name, same_model, short_name

if TYPE_CHECKING:
    from assistant.llm.backend import ChatBackend
    from assistant.llm.values import ModelInfo

__all__ = [
    "NEEDED",
    "ModelProblem",
    "Slot",
    "able_models",
    "can_take",
    "check_models",
    "close_names",
    "problems_in",
]

Slot = Literal["chat", "embedding"]
ProblemKind = Literal["unknown", "unable", "unchecked"]

# The capability (as /api/show names it) each slot needs.
NEEDED: Mapping[Slot, str] = {"chat": "completion", "embedding": "embedding"}
_JOB: Mapping[Slot, str] = {"chat": "generate text", "embedding": "embed text"}
_CLOSE = 3


@dataclass(frozen=True, slots=True)
class ModelProblem:
    """Why ``model`` can't take ``slot``, or could not be checked.

    Attributes:
        slot: ``chat`` or ``embedding``.
        model: the name as the user gave it.
        kind: ``unknown`` (Ollama has no such model), ``unable`` (it lacks the slot's
            capability) or ``unchecked`` (Ollama could not be asked).
        host: the Ollama host asked.
        close: installed names close to an unknown one, closest first.
        capabilities: what Ollama says the model can do (``unable``).
        able: installed models that can take the slot.
        reason: why the model could not be checked (``unchecked``).
    """

    slot: Slot
    model: str
    kind: ProblemKind
    host: str
    close: tuple[str, ...] = ()
    capabilities: frozenset[str] = frozenset()
    able: tuple[str, ...] = ()
    reason: str = ""

    @property
    def forcible(self) -> bool:
        """Whether the user may save the name anyway (it may work once pulled, or once
        Ollama is back); a model Ollama says can't do the job never will."""
        return self.kind != "unable"

    def text(self, pull: Callable[[str], str]) -> str:
        """The problem in plain words.

        Args:
            pull: the front's sentence saying how to pull a model by name ("Pull it
                with `hippo model pull NAME`.").
        """
        name, role = self.model, f"the {self.slot} model"
        if self.kind == "unchecked":
            return f"Could not check {name!r} ({role}): {self.reason}"
        if self.kind == "unknown":
            guess = f" Did you mean {_either(self.close)}?" if self.close else ""
            return f"Ollama at {self.host} has no model {name!r}.{guess} {pull(name)}"
        can = ", ".join(sorted(self.capabilities)) or "nothing"
        others = (
            f" Installed models that can: {', '.join(self.able)}."
            if self.able
            else f" None installed can; {_EXAMPLE[self.slot]} does. {pull(_EXAMPLE[self.slot])}"
        )
        return (
            f"{name!r} can't be {role}: it must {_JOB[self.slot]} ({NEEDED[self.slot]}), "
            f"and Ollama says it does {can}.{others}"
        )


# What to pull when nothing installed can take the slot (small, common models).
_EXAMPLE: Mapping[Slot, str] = {"chat": "qwen3:1.7b", "embedding": "embeddinggemma"}


def _either(names: Iterable[str]) -> str:
    quoted = [repr(n) for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + f" or {quoted[-1]}"


def close_names(model: str, installed: Iterable[str]) -> tuple[str, ...]:
    """Installed models whose names are close to ``model`` (a typo, a missing tag).

    Models of the same family come first ("qwen3" finds "qwen3:1.7b"), then those
    ``difflib`` finds alike, by whole name or by family: a typo in the family ("qwn3")
    is as far from "qwen3:1.7b" as a tag makes it, so the family is compared alone too.
    """
    names = list(dict.fromkeys(short_name(n) for n in installed))
    family = [n for n in names if base_name(n) == base_name(model)]
    lowered = {n.lower(): n for n in names}
    alike = difflib.get_close_matches(model.lower(), list(lowered), n=_CLOSE, cutoff=0.6)
    families: dict[str, list[str]] = {}
    for name in names:
        families.setdefault(base_name(name), []).append(name)
    kin = difflib.get_close_matches(base_name(model), list(families), n=_CLOSE, cutoff=0.6)
    found = dict.fromkeys(
        [*family, *(lowered[n] for n in alike), *(n for k in kin for n in families[k])]
    )
    return tuple(found)[:_CLOSE]


def able_models(slot: Slot, listed: Iterable[ModelInfo]) -> tuple[str, ...]:
    """The installed models that can take ``slot``, by name."""
    return tuple(sorted(short_name(i.name) for i in listed if can_take(i, slot)))


def can_take(info: ModelInfo, slot: Slot) -> bool:
    """Whether the installed model ``info`` can take ``slot``."""
    # No capabilities at all: an Ollama that does not report them; taken on trust.
    return not info.capabilities or NEEDED[slot] in info.capabilities


def problems_in(
    listed: list[ModelInfo], choices: Mapping[Slot, str], host: str
) -> list[ModelProblem]:
    """What is wrong with ``choices`` (slot -> model name), given the installed models.

    Args:
        listed: the installed models with their capabilities (``Hippo.models``).
        choices: the names to check, by slot.
        host: the Ollama host they were listed from.

    Returns:
        One problem per choice that can't be used, in the order of ``choices``.
    """
    problems = []
    for slot, model in choices.items():
        found = next((i for i in listed if same_model(i.name, model)), None)
        if found is None:
            close = close_names(model, (i.name for i in listed))
            problems.append(ModelProblem(slot, model, "unknown", host, close=close))
        elif not can_take(found, slot):
            able = able_models(slot, listed)
            problems.append(
                ModelProblem(
                    slot, model, "unable", host, capabilities=found.capabilities, able=able
                )
            )
    return problems


def check_models(llm: ChatBackend, choices: Mapping[Slot, str]) -> list[ModelProblem]:
    """Ask Ollama whether each of ``choices`` is installed and can take its slot.

    Blocks on the network (one listing, one ``show`` per installed model).

    Returns:
        The problems (see ``problems_in``); every choice is ``unchecked`` when Ollama
        can't be asked.
    """
    if not choices:
        return []
    try:
        listed = llm.list_models()
    except OllamaError as exc:
        return [
            ModelProblem(slot, model, "unchecked", llm.host, reason=str(exc))
            for slot, model in choices.items()
        ]
    return problems_in(listed, choices, llm.host)
