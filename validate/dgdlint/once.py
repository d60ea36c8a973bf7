"""`once`: a property computed on first use and kept on the instance, as functools.cached_property does,
without the lock Python 3.11's takes on every first use (about 1 us each: the rules run on one thread and
read thousands of these per run)."""

from __future__ import annotations


class once:
    def __init__(self, func):
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        # A non-data descriptor: once the value is in the instance's __dict__, Python finds it there first.
        value = instance.__dict__[self.name] = self.func(instance)
        return value
