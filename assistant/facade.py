"""Attributes a facade reads through to the parts it wires (see ``assistant.engine``).

``Part("memory")`` named ``facts`` reads ``engine.memory.facts``; ``Via("memory",
Memory.recall)`` named ``recall`` is ``engine.memory.recall``, with its signature and
docstring; ``Setting()`` named ``chat_model`` reads ``engine.turn_settings.chat_model``
and sets it by replacing the whole value (see ``change_settings``), so that readers on
other threads see either the old value or the new one, never half of a change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Concatenate, Generic, ParamSpec, Protocol, TypeVar, overload

__all__ = ["Part", "Setting", "Via"]


class Settled(Protocol):
    """An object with an immutable ``turn_settings`` value, changed by replacing it."""

    @property
    def turn_settings(self) -> Any: ...

    def change_settings(self, **changes: Any) -> Any: ...


T = TypeVar("T")
P = ParamSpec("P")
R = TypeVar("R")


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


class Via(Generic[P, R]):
    """A method of one of the engine's parts, called through the engine.

    Args:
        part: the engine's attribute that holds the part.
        method: the part's method (its name, signature and docstring are the engine's).
    """

    def __init__(self, part: str, method: Callable[Concatenate[Any, P], R]) -> None:
        self._part = part
        self._method = method.__name__
        self.__doc__ = method.__doc__

    @overload
    def __get__(self, obj: None, owner: type) -> Via[P, R]: ...
    @overload
    def __get__(self, obj: object, owner: type) -> Callable[P, R]: ...
    def __get__(self, obj: object, owner: type) -> Callable[P, R] | Via[P, R]:
        if obj is None:
            return self
        bound: Callable[P, R] = getattr(getattr(obj, self._part), self._method)
        return bound


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
