# SPDX-License-Identifier: GPL-2.0-only
# A stand-in for a daemon that refuses its peers: each connection gets one
# error reply and is closed at once, usually before the client has sent its
# request (tests/host/run.sh: the client must still read the reply).
import os, socket, sys
path, n = sys.argv[1], int(sys.argv[2])
s = socket.socket(socket.AF_UNIX)
s.bind(path)
s.listen(n)
open(path + ".ready", "w").close()
for _ in range(n):
    c, _ = s.accept()
    c.sendall(b'{"v":1,"ok":false,"error":{"code":"permission.denied","message":"refused by the stand-in"}}\n')
    c.close()
