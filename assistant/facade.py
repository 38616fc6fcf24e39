"""Attributes a facade reads through to the parts it wires (see ``assistant.engine``).

``Part("memory")`` named ``facts`` reads ``engine.memory.facts``; ``Setting()`` named
``chat_model`` reads ``engine.turn_settings.chat_model`` and sets it by replacing the whole
value (see ``change_settings``), so that readers on other threads see either
the old value or the new one, never half of a change.
"""

from __future__ import annotations

from typing import Any, Generic, Protocol, TypeVar, overload

__all__ = ["Part", "Setting"]


class Settled(Protocol):
    """An object with an immutable ``turn_settings`` value, changed by replacing it."""

    @property
    def turn_settings(self) -> Any: ...

    def change_settings(self, **changes: Any) -> Any: ...


T = TypeVar("T")


class Part(Generic[T]):
    """An attribute of one of the engine's parts, read through the engine."""

    def __init__(self, part: str) -> None:
        self._part = part

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, obj: None, owner: type) -> Part[T]: ...
    @overload
    def __get__(self, obj: object, owner: type) -> T: ...
    def __get__(self, obj: object, owner: type) -> T | Part[T]:
        return self if obj is None else getattr(getattr(obj, self._part), self._name)


class Setting(Generic[T]):
    """One of the turn settings, read from the current value and set by replacing it."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, obj: None, owner: type) -> Setting[T]: ...
    @overload
    def __get__(self, obj: Settled, owner: type) -> T: ...
    def __get__(self, obj: Settled | None, owner: type) -> T | Setting[T]:
        return self if obj is None else getattr(obj.turn_settings, self._name)

    def __set__(self, obj: Settled, value: T) -> None:
        obj.change_settings(**{self._name: value})
