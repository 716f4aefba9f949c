"""The second folder of the multi-root end-to-end test."""


class Hammer:
    def strike(self, nails: int) -> int:
        return nails
