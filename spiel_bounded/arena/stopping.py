"""Stopping a tournament's pairings once their SPRT decides (`[tournament] sprt`).

Each two-bot pairing (a game and a table) is tested on its pairs in round order, as the report
replays it (`sprt.replay`): a round counts once both of its games are finished (a round with a
game that raised is skipped, as the report leaves its pair out), and only rounds up to the first
one still being played. When the test crosses a bound, the pairing's remaining games are not
started; games already running finish and are recorded (the report shows them after the
decision). A resumed run replays the test over the finished games first, so a pairing decided
before is not played again.
"""

from __future__ import annotations

from collections.abc import Sequence

from spiel_bounded.arena.paired import pairs_of
from spiel_bounded.arena.records import GameRecord
from spiel_bounded.arena.schedule import Match
from spiel_bounded.arena.sprt import SPRTSettings, SPRTStatus, replay

PairingKey = tuple[str, str, str]
"""(game, bot, opponent): bot before opponent in the tournament's label order."""


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
        self.order = list(order)
        rank = {label: index for index, label in enumerate(self.order)}
        self._rounds: dict[PairingKey, dict[int, set[str]]] = {}
        self._pairing_of: dict[str, PairingKey] = {}
        for match in schedule:
            bot, opponent = sorted(set(match.table), key=lambda label: rank.get(label, len(rank)))
            key = (match.game, bot, opponent)
            self._rounds.setdefault(key, {}).setdefault(match.round, set()).add(match.game_id)
            self._pairing_of[match.game_id] = key
        self._finished: dict[str, GameRecord] = {}
        self.decided: dict[PairingKey, SPRTStatus] = {}
        for record in records:
            self._finished[record.game_id] = record
        for key in self._rounds:
            self._check(key)

    def add(self, record: GameRecord) -> SPRTStatus | None:
        """Counts a finished game; the status when this decides its pairing, else None."""
        self._finished[record.game_id] = record
        key = self._pairing_of.get(record.game_id)
        if key is None or key in self.decided:
            return None
        return self._check(key)

    def wanted(self, match: Match) -> bool:
        """False for a game of a decided pairing."""
        return self._pairing_of.get(match.game_id) not in self.decided

    def _check(self, key: PairingKey) -> SPRTStatus | None:
        counted: list[GameRecord] = []
        for _, game_ids in sorted(self._rounds[key].items()):
            if not all(game_id in self._finished for game_id in game_ids):
                break
            counted += [self._finished[game_id] for game_id in sorted(game_ids)]
        pairs = pairs_of(counted, self.order).get(key)
        if pairs is None:
            return None
        result = replay(pairs.points, self.settings)
        if result.decision is None:
            return None
        self.decided[key] = result
        return result
