"""Translations between the engine's plain Python values and the API's messages (options, game descriptions).

>>> option_value(True).bool_value
True
>>> python_value(option_value(None)) is None
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import engine
from engine.bots import label_parts, parse_params, policy_class, policy_label
from engine.options import Option

from ..generated.cardtable.v1 import common_pb2, game_service_pb2
from .allowed_policies import PolicyAllowList
from .errors import InvalidArgument, quoted

OPTION_TYPES = {int: game_service_pb2.OPTION_TYPE_INT, bool: game_service_pb2.OPTION_TYPE_BOOL,
                str: game_service_pb2.OPTION_TYPE_STRING}


def option_value(value: Any) -> common_pb2.OptionValue:
    """An option's Python value (None, bool, int or str) as an OptionValue."""
    if value is None:
        return common_pb2.OptionValue(null_value=0)
    if isinstance(value, bool):
        return common_pb2.OptionValue(bool_value=value)
    if isinstance(value, int):
        return common_pb2.OptionValue(int_value=value)
    if isinstance(value, str):
        return common_pb2.OptionValue(string_value=value)
    raise TypeError(f"an option value is None, a bool, an int or a str, not {value!r}")


def python_value(value: common_pb2.OptionValue) -> Any:
    kind = value.WhichOneof("kind")
    if kind is None:
        raise InvalidArgument("an option value must set one of int_value, bool_value, string_value, null_value")
    return None if kind == "null_value" else getattr(value, kind)


def options_from_request(options: Mapping[str, common_pb2.OptionValue], game_id: str | None = None) -> dict[str, Any]:
    """The options map of a request as Python values; with ``game_id``, names that the game does not know are refused
    here (UnknownOption; the engine checks the rest)."""
    if game_id is not None:
        engine.check_options(game_id, options)
    out = {}
    for name, value in options.items():
        try:
            out[name] = python_value(value)
        except InvalidArgument as exc:
            raise InvalidArgument(f"option {quoted(name)}: {exc}") from None
    return out


def game_summary(game_id: str) -> game_service_pb2.GameSummary:
    info = engine.game_info(game_id)
    return game_service_pb2.GameSummary(game_id=info.id, name=info.name, summary=info.summary,
                                        player_counts=info.player_counts, default_players=info.default_players)


def option_spec(option: Option, players: int) -> game_service_pb2.OptionSpec:
    spec = game_service_pb2.OptionSpec(
        name=option.name, type=OPTION_TYPES[option.type], default_value=option_value(option.default_for(players)),
        choices=[option_value(c) for c in option.allowed(players) or ()], nullable=option.nullable, doc=option.doc,
        allowed=option.describe_allowed(players))
    if option.minimum is not None:
        spec.minimum = option.minimum
    if option.maximum is not None:
        spec.maximum = option.maximum
    return spec


def game_info_response(game_id: str, players: int | None) -> game_service_pb2.GetGameInfoResponse:
    """GetGameInfo's answer: defaults and allowed values for ``players`` (the game's default when None)."""
    info = engine.game_info(game_id)
    players = engine.check_players(game_id, players)
    return game_service_pb2.GetGameInfoResponse(
        game=game_summary(game_id), deck_size=info.deck_size_for(players), players=players,
        options=[option_spec(o, players) for o in info.all_options()])


def policy_label_of(name: str, params: Mapping[str, str], allowed: PolicyAllowList) -> str:
    """The canonical label of a requested policy, checked up front: ``name`` is a policy's name or a label
    (``greedy:epsilon=0.3``), ``params`` more parameters' texts (``{"epsilon": "0.3"}``). A policy of one's own is
    named by the name its package registers, or by its import path (``mybots.cautious:Cautious``) when ``allowed``
    allows its module: nothing is imported for a policy it does not allow. InvalidArgument names what is allowed (the
    policies, a policy's parameters, a parameter's values)."""
    try:
        policy, texts = label_parts(name)
        allowed.check(policy)
        policy_class(policy)
        both = sorted(set(texts) & set(params))
        if both:
            raise ValueError(f"policy {quoted(policy)}: parameter {quoted(both[0])} is given twice, in the label and "
                             "in params")
        return policy_label(policy, parse_params(policy, {**texts, **params}))
    except ValueError as exc:
        raise InvalidArgument(str(exc)) from None

