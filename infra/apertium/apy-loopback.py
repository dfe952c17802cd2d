#!/usr/bin/python3
"""Debian's APy (apertium-apy), listening on one address only: 127.0.0.1 unless APERTIUM_HOST says.

apertium-apy binds every interface and has no option to choose one; its API-key file (-ak) only
labels requests in its logs and refuses none. This launcher runs APy's own application, with APy's
own arguments, and binds the address given (infra/apertium/apertium.sh starts APy through it).
"""
import os
import signal

import tornado.httpserver
import tornado.ioloop
from apertium_apy import apy


def main():
    apy.check_utf8()
    args = apy.parse_args()
    apy.setup_logging(args)
    application = apy.setup_application(args)
    server = tornado.httpserver.HTTPServer(application)
    signal.signal(signal.SIGTERM, apy.sig_handler)
    signal.signal(signal.SIGINT, apy.sig_handler)
    host = os.environ.get('APERTIUM_HOST', '127.0.0.1')
    server.bind(args.port, address=host)
    server.start(args.num_processes)
    apy.logging.info('Serving on http://%s:%s only', host, args.port)
    tornado.ioloop.IOLoop.instance().start()


if __name__ == '__main__':
    main()
