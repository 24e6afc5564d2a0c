"""A feed host: real-world-shaped RSS 2.0 and Atom documents with ETag/Last-Modified."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

from aiohttp import web


def _rss(now: datetime) -> str:
    def when(hours: float) -> str:
        return format_datetime(now - timedelta(hours=hours))

    return f"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"
     xmlns:content="http://purl.org/rss/1.0/modules/content/"
     xmlns:dc="http://purl.org/dc/elements/1.1/"
     xmlns:atom="http://www.w3.org/2005/Atom"
     xmlns:media="http://search.yahoo.com/mrss/"
     xmlns:sy="http://purl.org/rss/1.0/modules/syndication/">
<channel>
  <title>Valley Gazette</title>
  <atom:link href="https://gazette.example/feed/" rel="self" type="application/rss+xml"/>
  <link>https://gazette.example</link>
  <description>Local news from the valley</description>
  <lastBuildDate>{when(0.5)}</lastBuildDate>
  <language>en-GB</language>
  <sy:updatePeriod>hourly</sy:updatePeriod>
  <generator>https://wordpress.org/?v=6.7.1</generator>
  <item>
    <title><![CDATA[Council approves new cycle lane on Mill Road]]></title>
    <link>https://gazette.example/2026/cycle-lane-mill-road/</link>
    <dc:creator><![CDATA[Priya Shah]]></dc:creator>
    <pubDate>{when(2)}</pubDate>
    <category><![CDATA[Transport]]></category>
    <guid isPermaLink="false">https://gazette.example/?p=8812</guid>
    <description><![CDATA[<p>The <strong>cycle lane</strong> will run from the station to the
      bridge.</p><p>The post <a href="https://gazette.example/2026/cycle-lane-mill-road/">Council
      approves new cycle lane</a> appeared first on <a href="https://gazette.example">Valley
      Gazette</a>.</p>]]></description>
    <content:encoded><![CDATA[<p>Councillors voted 9 to 2 for the scheme.</p>
      <script>trackReader()</script><figure><img src="lane.jpg" alt=""/></figure>]]>
    </content:encoded>
    <media:content url="https://gazette.example/lane.jpg" medium="image"/>
  </item>
  <item>
    <title>Flood warning lifted for the River Wend</title>
    <link>https://gazette.example/2026/flood-warning-lifted/</link>
    <dc:creator>Tom Ellis</dc:creator>
    <pubDate>{when(7)}</pubDate>
    <category>Weather</category>
    <guid isPermaLink="false">https://gazette.example/?p=8809</guid>
    <description>&lt;p&gt;River levels at the Wend bridge gauge fell below the
      warning threshold overnight &amp;amp; roads have reopened.&lt;/p&gt;</description>
  </item>
  <item>
    <title>Bakery on High Street wins regional sourdough prize</title>
    <link>https://gazette.example/2026/sourdough-prize/</link>
    <pubDate>{when(30)}</pubDate>
    <guid>https://gazette.example/2026/sourdough-prize/</guid>
    <description><![CDATA[Judges praised the <em>crust</em> &amp; crumb.]]></description>
  </item>
</channel>
</rss>
"""


def _atom(now: datetime) -> str:
    def when(hours: float) -> str:
        return (now - timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")

    return f"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en">
  <title type="text">Home Automation Weekly</title>
  <subtitle>Smart home news and releases</subtitle>
  <link rel="alternate" type="text/html" href="https://haweekly.example/"/>
  <link rel="self" type="application/atom+xml" href="https://haweekly.example/atom.xml"/>
  <id>tag:haweekly.example,2024:feed</id>
  <updated>{when(1)}</updated>
  <author><name>HA Weekly</name></author>
  <entry>
    <title type="html">Zigbee2MQTT 2.0 &lt;em&gt;released&lt;/em&gt;</title>
    <link rel="alternate" type="text/html" href="https://haweekly.example/z2m-2-0"/>
    <id>tag:haweekly.example,2026:z2m-2-0</id>
    <published>{when(1)}</published>
    <updated>{when(1)}</updated>
    <summary type="html">&lt;p&gt;The new major version drops legacy
      &lt;code&gt;homeassistant&lt;/code&gt; options and speeds up MQTT
      discovery.&lt;/p&gt;</summary>
  </entry>
  <entry>
    <title>Matter over Thread: what changed this year</title>
    <link href="https://haweekly.example/matter-thread"/>
    <id>tag:haweekly.example,2026:matter-thread</id>
    <updated>{when(50)}</updated>
    <content type="xhtml">
      <div xmlns="http://www.w3.org/1999/xhtml"><p>Border routers from three vendors now
      share one <b>Thread</b> network.</p><style>p {{ color: red }}</style></div>
    </content>
  </entry>
</feed>
"""


# Truncated mid-element with a stray ampersand: what a crashed CMS sends.
BROKEN = b"""<html><head><title>502 Bad Gateway</title></head>
<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>
"""


@dataclass
class FeedHost:
    """Knobs a test turns, and the request headers the host saw per path."""

    now: datetime = field(default_factory=lambda: datetime.now(UTC).replace(microsecond=0))
    seen: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    served_304: int = 0


STATE = web.AppKey("feed_host", FeedHost)


def _conditional(request: web.Request, body: bytes, ctype: str) -> web.Response:
    host = request.app[STATE]
    etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
    modified = format_datetime(host.now, usegmt=True)
    if request.headers.get("If-None-Match") == etag or (
        "If-None-Match" not in request.headers
        and request.headers.get("If-Modified-Since") == modified
    ):
        host.served_304 += 1
        return web.Response(status=304, headers={"ETag": etag, "Last-Modified": modified})
    return web.Response(
        body=body,
        headers={"Content-Type": ctype, "ETag": etag, "Last-Modified": modified},
    )


async def handle(request: web.Request) -> web.Response:
    """Serve one of the feeds, honouring conditional GET."""
    host = request.app[STATE]
    host.seen.setdefault(request.path, []).append(dict(request.headers))
    name = request.match_info["name"]
    if name == "rss.xml":
        return _conditional(request, _rss(host.now).encode(), "application/rss+xml; charset=UTF-8")
    if name == "atom.xml":
        return _conditional(request, _atom(host.now).encode(), "application/atom+xml")
    if name == "broken.xml":
        return web.Response(body=BROKEN, content_type="text/html")
    if name == "gone.xml":
        return web.Response(status=410, text="Gone")
    raise web.HTTPNotFound()


def feed_app(host: FeedHost | None = None) -> web.Application:
    """The stub application."""
    app = web.Application()
    app[STATE] = host or FeedHost()
    app.router.add_get("/feeds/{name}", handle)
    return app
