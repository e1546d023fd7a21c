"""Issue #22: a client generated from the served OpenAPI document
(openapi-python-client) plays through typed models, not dictionaries.

Run by tests/client/run, which generates the `posthorn_client` package
first. It plays a whole checkers match by legal actions, reads Alice's
FlipChess hand, and plays a Janggi match to its end on points.
"""
import os
import random
import sys
import uuid

from posthorn_client import AuthenticatedClient, Client
from posthorn_client.api.accounts import register
from posthorn_client.api.matches import accept_challenge, create_match, legal_actions, post_action, view_match
from posthorn_client.models import (
    ActionRequest,
    CheckersActionAnswer,
    CheckersActionMove,
    CheckersEventMoved,
    CheckersLegalActions,
    CheckersView,
    FlipChessView,
    JanggiActionAnswer,
    JanggiActionMove,
    JanggiActionPass,
    JanggiEventFinished,
    JanggiLegalActions,
    JanggiOptions,
    JanggiSetup,
    JanggiSetups,
    JanggiView,
    MatchView,
    NewMatch,
    Registration,
    Session,
)

BASE = os.environ["POSTHORN_URL"]


def expect(value, kind):
    if not isinstance(value, kind):
        sys.exit(f"expected {kind.__name__}, got {type(value).__name__}: {value!r}")
    return value


def player(name):
    session = register.sync(
        client=Client(base_url=BASE),
        body=Registration(username=f"{name}{uuid.uuid4().hex[:8]}", password="correct horse battery"),
    )
    session = expect(session, Session)
    return session.user.username, AuthenticatedClient(base_url=BASE, token=session.access_token)


def started(creator, opponent, body):
    """Create a match that challenges `opponent`, who accepts it."""
    waiting = expect(create_match.sync(client=creator, body=body), MatchView)
    if waiting.status.value != "waiting":
        sys.exit(f"a challenged match starts waiting, not {waiting.status.value}")
    return expect(accept_challenge.sync(waiting.id, client=opponent), MatchView)


def play_out(match, clients, pick, kinds, listing, answering, limit=600):
    """Play `match` to its end: each turn the seat on move posts `pick`
    of its legal actions of `kinds`; the listing and each answer must be
    the game's own models. Returns the final match and every event."""
    events = []
    for _ in range(limit):
        if match.status.value == "finished":
            return match, events
        for client in clients:
            listed = expect(legal_actions.sync(match.id, client=client), listing)
            playing = [a for a in listed.actions if isinstance(a, kinds)]
            if not playing:
                continue
            answer = post_action.sync(
                match.id, client=client, body=ActionRequest(seq=listed.seq, action=pick(playing))
            )
            answer = expect(answer, answering)
            events.extend(answer.events)
            match = answer.match
            break
        else:
            sys.exit(f"nobody could act in {match.id}")
    sys.exit(f"{match.id} did not end in {limit} actions")


def main():
    alice, alice_client = player("alice")
    bob, bob_client = player("bob")
    clients = [alice_client, bob_client]

    # Checkers: a whole match; the view and the moves are typed models.
    created = started(alice_client, bob_client, NewMatch(game="checkers", opponents=[bob]))
    expect(created.view, CheckersView)
    finished, events = play_out(
        created, clients, lambda moves: moves[0], CheckersActionMove, CheckersLegalActions, CheckersActionAnswer
    )
    expect(finished.view, CheckersView)
    moved = [e for e in events if isinstance(e, CheckersEventMoved)]
    if len(moved) != finished.view.plies or not all(e.seq > 0 and e.move for e in moved):
        sys.exit(f"{len(moved)} typed moved events for {finished.view.plies} plies")
    print(f"checkers: {finished.view.plies} plies, {len(moved)} typed moved events")

    # FlipChess: Alice reads her own hand through the typed view.
    created = started(alice_client, bob_client, NewMatch(game="flipchess", opponents=[bob]))
    mine = expect(view_match.sync(created.id, client=alice_client), MatchView)
    view = expect(mine.view, FlipChessView)
    if not view.hand or not all(isinstance(card, str) for card in view.hand):
        sys.exit(f"no hand in Alice's FlipChess view: {view!r}")
    theirs = expect(view_match.sync(created.id, client=bob_client), MatchView)
    if set(expect(theirs.view, FlipChessView).hand) & set(view.hand) == set(view.hand):
        sys.exit("Bob's view shows Alice's hand")
    print(f"flipchess: Alice holds {len(view.hand)} cards: {', '.join(view.hand)}")

    # Janggi with chosen setups, to its end (passes are typed actions too).
    options = JanggiOptions(setups=JanggiSetups(cho=JanggiSetup.MSMS, han=JanggiSetup.SMMS))
    created = started(alice_client, bob_client, NewMatch(game="janggi", opponents=[bob], options=options))
    view = expect(created.view, JanggiView)
    assert view.setups.cho == JanggiSetup.MSMS and view.setups.han == JanggiSetup.SMMS
    finished, events = play_out(
        created, clients, random.Random(14).choice, (JanggiActionMove, JanggiActionPass), JanggiLegalActions,
        JanggiActionAnswer,
    )
    view = expect(finished.view, JanggiView)
    end = [e for e in events if isinstance(e, JanggiEventFinished)]
    if len(end) != 1 or len(end[0].result.scores) != 2:
        sys.exit(f"the end of the Janggi match is not a typed event with both scores: {end!r}")
    print(f"janggi: {view.plies} plies, {end[0].result.reason}, scores {end[0].result.scores}")


if __name__ == "__main__":
    main()
