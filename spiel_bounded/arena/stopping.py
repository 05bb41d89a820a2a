"""Stopping a tournament's pairings once their SPRT decides (`[tournament] sprt`).

Each two-bot pairing (a game and a table) is tested on its pairs in round order, as the report
replays it (`sprt.replay`): a round counts once every game of it has a record, only rounds up
to the first one still being played, and a round that is not a complete pair (a game raised or
could not start) is skipped, as the report leaves it out (`paired.pair_result` decides both).
When the test crosses a bound the pairing's remaining games are not started; the process
executor lets games already running finish (they are recorded, and the report counts them
after the decision), the Dask executor cancels those not yet finished. A resumed run replays
the test over the finished games first and does not schedule a decided pairing's games.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from spiel_bounded.arena.paired import PAIR_SCORES, PairingKey, pair_result
from spiel_bounded.arena.records import GameRecord, pair_order
from spiel_bounded.arena.schedule import Match
from spiel_bounded.arena.sprt import SPRTSettings, SPRTStatus, status


@dataclass
class _Pairing:
    """One pairing's rounds (round -> game ids), the next round to count and the counts."""

    rounds: dict[int, set[str]] = field(default_factory=dict)
    next_round: int = 0
    counts: list[int] = field(default_factory=lambda: [0] * len(PAIR_SCORES))


class SPRTStopper:
    """Which scheduled games a tournament under an SPRT still wants.

    Args:
        settings: The test.
        order: The tournament's bot labels (the first of a pairing is the one tested for
            being `elo1` stronger).
        schedule: Every scheduled game.
        records: The finished games so far (latest record of each game).
    """

    def __init__(
        self,
        settings: SPRTSettings,
        order: Sequence[str],
        schedule: Sequence[Match],
        records: Sequence[GameRecord],
    ) -> None:
        self.settings = settings
        self._pairings: dict[PairingKey, _Pairing] = {}
        self._pairing_of: dict[str, PairingKey] = {}
        for match in schedule:
            bot, opponent = pair_order(match.table, order)
            key = (match.game, bot, opponent)
            pairing = self._pairings.setdefault(key, _Pairing())
            pairing.rounds.setdefault(match.round, set()).add(match.game_id)
            self._pairing_of[match.game_id] = key
        self._records: dict[str, GameRecord] = {record.game_id: record for record in records}
        self.decided: dict[PairingKey, SPRTStatus] = {}
        for key in self._pairings:
            self._advance(key)

    def add(self, record: GameRecord) -> SPRTStatus | None:
        """Counts a game's record (any: a game that could not start ends its round's pair
        too); the status when this decides its pairing, else None."""
        self._records[record.game_id] = record
        key = self._pairing_of.get(record.game_id)
        if key is None or key in self.decided:
            return None
        return self._advance(key)

    def wanted(self, match: Match) -> bool:
        """False for a game of a decided pairing."""
        return self._pairing_of.get(match.game_id) not in self.decided

    def _advance(self, key: PairingKey) -> SPRTStatus | None:
        """Counts the pairing's rounds that are complete, in order, testing after each pair."""
        pairing = self._pairings[key]
        ordered = sorted(pairing.rounds)
        while pairing.next_round < len(ordered):
            game_ids = pairing.rounds[ordered[pairing.next_round]]
            if not all(game_id in self._records for game_id in game_ids):
                return None
            pairing.next_round += 1
            result = pair_result([self._records[game_id] for game_id in game_ids], key[1])
            if result is None:
                continue
            pairing.counts[round(2 * result.points)] += 1
            current = status(pairing.counts, self.settings)
            if current.decision is not None:
                self.decided[key] = current
                return current
        return None
