"""News for friends' boards (doce/remote.py): an end of a match or a refusal of one, sent retained once
the broker is there and kept in remote-news.json until it has acknowledged it, so a board that leaves
a match, or refuses one, while off the broker tells its friend's board when it is back, a power cut
between included. Loaded only when there is news: doce/net.py calls connected, send and puback.
"""

import json
import os

from .outbox import fits

NEWS = "remote-news.json"  # [[topic, message]]
MAX_NEWS = 4
MAX_TEXT = 200  # an end or a refusal: under 150 bytes


class News:
    """Ends and refusals for friends' boards, each sent once the broker is there and kept in NEWS until
    it has acknowledged it: a board that leaves a match, or refuses one, off the broker, tells its
    friend's when it is back, a power cut between included (doce/net.py calls connected, send and puback)."""

    def __init__(self, items):
        self.items = items  # [topic, message, packet id or 0 if not sent on this connection]

    def connected(self):
        """A new connection: each goes again (send), the last one's unacknowledged."""
        for item in self.items:
            item[2] = 0

    def send(self, net):
        """Each not yet sent on this connection, if the pipe has room for it (doce/outbox.py fits): the rest
        at a later scan (doce/net.py work)."""
        for item in self.items:
            if not item[2]:
                topic = item[0].encode()
                if not fits(net.pipe, topic, item[1]):
                    return
                item[2] = net._publish(topic, item[1], True, 1)

    def puback(self, net, pid):
        for item in self.items:
            if item[2] == pid:
                self.items.remove(item)
                keep_news(net, self)
                return


def tell(net, topic, message):
    """`message`, retained, on `topic` of a friend's board: now, or once the broker is there."""
    news = net.news or News([])
    topic = topic.decode() if isinstance(topic, bytes) else topic
    news.items = [item for item in news.items if item[0] != topic][-(MAX_NEWS - 1):]  # the newest says it all
    item = [topic, message, 0]
    news.items.append(item)
    keep_news(net, news)
    if net.up:
        news.send(net)


def keep_news(net, news):
    net.news = news if news.items else None
    try:
        if news.items:
            with open(NEWS + ".new", "w") as f:
                json.dump([item[:2] for item in news.items], f)
            os.rename(NEWS + ".new", NEWS)
        else:
            os.remove(NEWS)
    except OSError:
        pass  # (sent all the same if the broker is there: only a power cut before it would lose it)


def load_news(net):
    """At boot: the news not yet on the broker, if any (kept by tell)."""
    try:
        with open(NEWS) as f:
            items = json.load(f)
    except (OSError, ValueError):
        return
    if isinstance(items, list):
        from .netconfig import is_topic_level
        good = [[t, m, 0] for t, m in (i for i in items if isinstance(i, list) and len(i) == 2)
                if isinstance(t, str) and isinstance(m, str) and len(m) <= MAX_TEXT and t.count("/") >= 2
                and is_topic_level(t.rsplit("/", 1)[1])]
        if good:
            net.news = News(good[-MAX_NEWS:])
