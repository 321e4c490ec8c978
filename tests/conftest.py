"""Test-wide settings: none. The suite runs cardsim exactly as a user's command does
(Numba's own compilation and on-disk cache, no switches)."""
