"""Small helpers the gRPC tests share: seat specs, creating a match, playing a seat to the end through Act."""

from __future__ import annotations

from services.generated.cardtable.v1 import common_pb2, game_service_pb2

PERSON = game_service_pb2.SeatSpec(kind=game_service_pb2.SEAT_KIND_PERSON)
ONE_DEAL = {"max_deals": common_pb2.OptionValue(int_value=1)}


def bot(policy: str = "random") -> game_service_pb2.SeatSpec:
    return game_service_pb2.SeatSpec(kind=game_service_pb2.SEAT_KIND_BOT, policy=policy)


def create(stub, seats, game_id: str = "tablanette", seed: int = 7, options=None):
    """CreateGame; returns (response, {seat: token})."""
    response = stub.CreateGame(game_service_pb2.CreateGameRequest(
        game_id=game_id, seats=seats, seed=seed, options=ONE_DEAL if options is None else options))
    return response, {t.seat: t.token for t in response.seat_tokens}


def observe(stub, match_id: str, seat: int, token: str) -> common_pb2.View:
    request = game_service_pb2.GetObservationRequest(match_id=match_id, seat=seat, seat_token=token)
    return stub.GetObservation(request).view


def act(stub, match_id: str, seat: int, token: str, action: str, expected: int) -> game_service_pb2.ActResponse:
    return stub.Act(game_service_pb2.ActRequest(match_id=match_id, seat=seat, seat_token=token, action=action,
                                                expected_move_number=expected))


def play_to_end(stub, match_id: str, tokens: dict[int, str], choose=lambda legal: legal[-1]) -> list:
    """Play every person seat with ``choose`` until the match is over; returns the ActResponses."""
    responses = []
    views = {seat: observe(stub, match_id, seat, token) for seat, token in tokens.items()}
    latest = max(views.values(), key=lambda v: v.move_number)
    while not latest.game_over:
        seat = latest.current_player
        view = observe(stub, match_id, seat, tokens[seat]) if latest.seat != seat else latest
        response = act(stub, match_id, seat, tokens[seat], choose(list(view.legal_actions)), view.move_number)
        responses.append(response)
        latest = response.view
    return responses
