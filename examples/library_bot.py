from protocol.bot import Bot, run
from protocol.messages import PlayRequest


class Discarder(Bot):
    """Plays its lowest legal card, but dumps its highest when it cannot follow suit; the rest are the defaults."""

    name = "discarder"
    version = "1.0"

    def play(self, request: PlayRequest) -> str:
        led = request.trick.cards[0].card[1] if request.trick and request.trick.cards else None
        void = led is not None and all(card[1] != led for card in request.legal)
        return (max if void else min)(request.legal, key=lambda card: "23456789TJQKA".index(card[0]))


if __name__ == "__main__":
    run(Discarder())
