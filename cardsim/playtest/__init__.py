"""Play a seat yourself in the browser: ``cardsim playtest GAME`` and ``cardsim view``.

:mod:`.coach` estimates each legal option of a seat by a non-peeking Monte Carlo over the
games' own world samplers; :mod:`.session` keeps one game (played or viewed) behind a move
counter; :mod:`.server` serves the page (``static/``) and a small JSON API on 127.0.0.1
with a random token. Needs the ``play`` extra (``pip install 'cardsim[play]'``) for the
server; the coach and sessions need nothing beyond cardsim.
"""
