#!/usr/bin/python3
"""A stand-in for xdg-desktop-portal's WebExtensions portal (org.freedesktop.portal.WebExtensions),
for ci/run-firefox-extension.sh's portal run: Firefox ESR with
widget.use-xdg-desktop-portal.native-messaging = 1 asks it, on a private session bus, to start our
native messaging host, as a snap or Flatpak Firefox asks the real portal.

  portal.py --log FILE [--close-signal TERM|KILL] [--grant yes|no]

What it does is what xdg-desktop-portal's src/web-extensions.c does (upstream, Mozilla mode),
written from reading it, not copied:
- owns org.freedesktop.portal.Desktop; /org/freedesktop/portal/desktop has the WebExtensions
  interface, property version = 1;
- CreateSession(a{sv}) -> o: a session object (org.freedesktop.portal.Session: Close, Closed,
  version) at /org/freedesktop/portal/desktop/session/SENDER/session_handle_token, owned by the
  caller (other callers get AccessDenied);
- GetManifest(o name, s extension) -> s: the first NAME.json in the search path
  ($XDG_DESKTOP_PORTAL_WEB_EXTENSIONS_PATH, else ~/.mozilla/native-messaging-hosts,
  $XDG_CONFIG_HOME/mozilla/native-messaging-hosts, /usr/lib/mozilla/…, /usr/lib64/mozilla/…,
  /usr/lib/x86_64-linux-gnu/mozilla/…) whose name matches, type is stdio and allowed_extensions
  holds the extension id; the manifest as compact JSON, else an error (NotFound); a non-absolute
  path is an error;
- Start(o, s name, s extension, a{sv}) -> o: a Request object at
  /org/freedesktop/portal/desktop/request/SENDER/handle_token; then (the real portal asks the
  user once per app and host: this stand-in grants, or refuses with --grant no) the host is found
  again and spawned with g_spawn_async_with_pipes as the portal does: argv = [path, manifest
  file, extension id], the portal's own working directory and environment (NULL, NULL),
  descriptors other than the three pipes closed; the Response signal says 0 (started), 1 (refused)
  or 2 (not found), and a failed start closes the session;
- GetPipes(o, a{sv}) -> (hhh): the host's stdin, stdout and stderr, handed over once (the portal
  keeps no copy);
- the host's exit closes the session (Closed signal); Close, or the caller leaving the bus, kills
  the host (upstream: SIGKILL, "gracefully killing the process is delegated to the browser";
  Ubuntu's earlier patch: SIGTERM; --close-signal picks) and reaps it (the real portal's waitpid
  blocks until it exits: here a host still alive 10 s after SIGTERM is killed and logged as such).

Every call and what came of it is one JSON line in FILE (the proof judges them); "ready" on
stdout once the name is owned.
"""
import argparse
import json
import os
import re
import signal
import sys
import threading
import time

from gi.repository import Gio, GLib

BUS_NAME = "org.freedesktop.portal.Desktop"
DESKTOP_PATH = "/org/freedesktop/portal/desktop"

INTROSPECTION = """
<node>
  <interface name="org.freedesktop.portal.WebExtensions">
    <method name="CreateSession">
      <arg type="a{sv}" name="options" direction="in"/>
      <arg type="o" name="session_handle" direction="out"/>
    </method>
    <method name="GetManifest">
      <arg type="o" name="session_handle" direction="in"/>
      <arg type="s" name="name" direction="in"/>
      <arg type="s" name="extension_or_origin" direction="in"/>
      <arg type="s" name="json_manifest" direction="out"/>
    </method>
    <method name="Start">
      <arg type="o" name="session_handle" direction="in"/>
      <arg type="s" name="name" direction="in"/>
      <arg type="s" name="extension_or_origin" direction="in"/>
      <arg type="a{sv}" name="options" direction="in"/>
      <arg type="o" name="handle" direction="out"/>
    </method>
    <method name="GetPipes">
      <arg type="o" name="session_handle" direction="in"/>
      <arg type="a{sv}" name="options" direction="in"/>
      <arg type="h" name="stdin" direction="out"/>
      <arg type="h" name="stdout" direction="out"/>
      <arg type="h" name="stderr" direction="out"/>
    </method>
    <property name="version" type="u" access="read"/>
  </interface>
  <interface name="org.freedesktop.portal.Session">
    <method name="Close"/>
    <signal name="Closed">
      <arg type="a{sv}" name="details"/>
    </signal>
    <property name="version" type="u" access="read"/>
  </interface>
  <interface name="org.freedesktop.portal.Request">
    <method name="Close"/>
    <signal name="Response">
      <arg type="u" name="response"/>
      <arg type="a{sv}" name="results"/>
    </signal>
  </interface>
</node>
"""
NODE = Gio.DBusNodeInfo.new_for_xml(INTROSPECTION)
WEB_EXTENSIONS = NODE.lookup_interface("org.freedesktop.portal.WebExtensions")
SESSION = NODE.lookup_interface("org.freedesktop.portal.Session")
REQUEST = NODE.lookup_interface("org.freedesktop.portal.Request")
VALID_NAME = re.compile(r"^\w+(\.\w+)*$")
VALID_TOKEN = re.compile(r"^[A-Za-z0-9_]+$")
SUCCESS, CANCELLED, OTHER = 0, 1, 2


class Log:
    def __init__(self, path):
        self.file = open(path, "a")
        self.lock = threading.Lock()

    def __call__(self, event, **fields):
        with self.lock:
            self.file.write(json.dumps(dict(event=event, time=time.time(), **fields)) + "\n")
            self.file.flush()


def search_path(mode):
    override = os.environ.get("XDG_DESKTOP_PORTAL_WEB_EXTENSIONS_PATH")
    if override is not None:
        return override.split(":")
    home = os.path.expanduser("~")
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    if mode == "chromium":
        return [os.path.join(config, "google-chrome", "NativeMessagingHosts"),
                os.path.join(config, "chromium", "NativeMessagingHosts"),
                "/etc/opt/chrome/native-messaging-hosts", "/etc/chromium/native-messaging-hosts"]
    return [os.path.join(home, ".mozilla", "native-messaging-hosts"),
            os.path.join(config, "mozilla", "native-messaging-hosts"),
            "/usr/lib/mozilla/native-messaging-hosts", "/usr/lib64/mozilla/native-messaging-hosts",
            "/usr/lib/x86_64-linux-gnu/mozilla/native-messaging-hosts"]


class PortalError(Exception):
    def __init__(self, name, message):
        super().__init__(message)
        self.name = name


def find_host(mode, name, extension, log):
    """(host path, manifest file, manifest) as the portal's find_messaging_host decides."""
    if not VALID_NAME.match(name):
        raise PortalError("org.freedesktop.portal.Error.InvalidArgument", "Invalid native messaging host name")
    for directory in search_path(mode):
        filename = os.path.join(directory, name + ".json")
        try:
            with open(filename) as f:
                manifest = json.load(f)
        except FileNotFoundError:
            continue
        except (OSError, ValueError) as error:
            raise PortalError("org.freedesktop.portal.Error.Failed", "%s: %s" % (filename, error))
        if manifest.get("name") != name or manifest.get("type") != "stdio":
            log("manifest-skipped", file=filename, reason="name or type")
            continue
        allowed = manifest.get("allowed_origins" if mode == "chromium" else "allowed_extensions") or []
        if extension not in allowed:
            log("manifest-skipped", file=filename, reason="%r not in %r" % (extension, allowed))
            continue
        if not os.path.isabs(manifest.get("path") or ""):
            raise PortalError("org.freedesktop.portal.Error.Failed", "Native messaging host path is not absolute")
        return manifest["path"], filename, manifest
    raise PortalError("org.freedesktop.portal.Error.NotFound", "Could not find native messaging host")


class Session:
    def __init__(self, portal, sender, path, mode):
        self.portal, self.sender, self.path, self.mode = portal, sender, path, mode
        self.state = "init"
        self.pid = None
        self.watch = 0
        self.pipes = None
        self.registration = portal.connection.register_object(path, SESSION, self.on_call, self.on_property, None)

    def on_property(self, connection, sender, path, interface, name):
        return GLib.Variant("u", 1)

    def on_call(self, connection, sender, path, interface, method, parameters, invocation):
        if sender != self.sender:
            return invocation.return_dbus_error("org.freedesktop.portal.Error.NotAllowed", "Not the session's owner")
        self.portal.log("Session.Close", session=path, sender=sender)
        self.close(emit=False, why="Close")
        invocation.return_value(None)

    def host_exited(self, pid, status):
        self.watch = 0
        self.pid = None
        self.portal.log("host-exited", session=self.path, pid=pid, status=status)
        self.close(emit=True, why="the host exited")

    def close(self, emit, why):
        if self.state == "closed":
            return
        self.state = "closed"
        if self.watch:
            GLib.source_remove(self.watch)
            self.watch = 0
        if self.pid is not None:
            pid, self.pid = self.pid, None
            sent = getattr(signal, "SIG" + self.portal.close_signal)
            began = time.monotonic()
            os.kill(pid, sent)
            forced = []

            def force():
                forced.append(True)
                os.kill(pid, signal.SIGKILL)
            timer = threading.Timer(10.0, force)
            timer.start()
            _, status = os.waitpid(pid, 0)
            timer.cancel()
            self.portal.log("host-ended", session=self.path, pid=pid, signal=self.portal.close_signal, why=why,
                            seconds=round(time.monotonic() - began, 3), forcedAfter10s=bool(forced),
                            exitedBySignal=os.WIFSIGNALED(status) and os.WTERMSIG(status),
                            exitStatus=os.WIFEXITED(status) and os.WEXITSTATUS(status))
        for fd in self.pipes or ():
            os.close(fd)
        self.pipes = None
        if emit:
            self.portal.connection.emit_signal(self.sender, self.path, "org.freedesktop.portal.Session", "Closed",
                                               GLib.Variant("(a{sv})", ({},)))
        self.portal.connection.unregister_object(self.registration)
        self.portal.sessions.pop(self.path, None)
        self.portal.log("session-closed", session=self.path, why=why, signalled=emit)


class Portal:
    def __init__(self, args):
        self.log = Log(args.log)
        self.close_signal = args.close_signal
        self.grant = args.grant == "yes"
        self.sessions = {}
        self.connection = None

    def on_bus(self, connection, name):
        self.connection = connection
        connection.register_object(DESKTOP_PATH, WEB_EXTENSIONS, self.on_call, self.on_property, None)
        connection.signal_subscribe("org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged",
                                    "/org/freedesktop/DBus", None, Gio.DBusSignalFlags.NONE, self.on_name_owner)

    def on_name(self, connection, name):
        self.log("ready", cwd=os.getcwd(), environment=sorted(os.environ), closeSignal=self.close_signal,
                 grant=self.grant, searchPath=search_path("mozilla"))
        print("ready", flush=True)

    def on_name_lost(self, connection, name):
        # Not owning the name (another portal) or losing the bus: nothing to serve.
        self.log("name-lost", name=name)
        print("portal.py: %s not owned (or the bus went away)" % name, file=sys.stderr, flush=True)
        self.loop.quit()

    def on_property(self, connection, sender, path, interface, name):
        return GLib.Variant("u", 1)

    def on_name_owner(self, connection, sender, path, interface, signal_name, parameters):
        name, old, new = parameters.unpack()
        if name.startswith(":") and old and not new:
            for session in [s for s in self.sessions.values() if s.sender == name]:
                self.log("caller-left", session=session.path, sender=name)
                session.close(emit=False, why="the caller left the bus")

    def session_of(self, path, sender):
        session = self.sessions.get(path)
        if session is None or session.sender != sender:
            raise PortalError("org.freedesktop.DBus.Error.AccessDenied", "Invalid session")
        return session

    def on_call(self, connection, sender, path, interface, method, parameters, invocation):
        try:
            handler = {"CreateSession": self.create_session, "GetManifest": self.get_manifest,
                       "Start": self.start, "GetPipes": self.get_pipes}[method]
            handler(sender, parameters.unpack(), invocation)
        except PortalError as error:
            self.log(method + "-refused", sender=sender, error=error.name, message=str(error))
            invocation.return_dbus_error(error.name, str(error))

    def create_session(self, sender, arguments, invocation):
        (options,) = arguments
        token = options.get("session_handle_token", "t")
        mode = options.get("mode", "mozilla")
        if mode not in ("mozilla", "chromium"):
            raise PortalError("org.freedesktop.portal.Error.InvalidArgument", "Invalid mode")
        if not VALID_TOKEN.match(token):
            raise PortalError("org.freedesktop.portal.Error.InvalidArgument", "Invalid token %r" % token)
        path = "%s/session/%s/%s" % (DESKTOP_PATH, sender[1:].replace(".", "_"), token)
        if path in self.sessions:
            raise PortalError("org.freedesktop.portal.Error.Failed", "Session exists")
        self.sessions[path] = Session(self, sender, path, mode)
        self.log("CreateSession", sender=sender, options=options, session=path)
        invocation.return_value(GLib.Variant("(o)", (path,)))

    def get_manifest(self, sender, arguments, invocation):
        path, name, extension = arguments
        session = self.session_of(path, sender)
        if session.state != "init":
            raise PortalError("org.freedesktop.DBus.Error.Failed", "Session already started")
        _, filename, manifest = find_host(session.mode, name, extension, self.log)
        self.log("GetManifest", sender=sender, session=path, name=name, extension=extension, file=filename)
        invocation.return_value(GLib.Variant("(s)", (json.dumps(manifest, separators=(",", ":")),)))

    def start(self, sender, arguments, invocation):
        path, name, extension, options = arguments
        session = self.session_of(path, sender)
        if session.state != "init":
            raise PortalError("org.freedesktop.DBus.Error.Failed", "Session already started")
        token = options.get("handle_token", "t")
        if not VALID_TOKEN.match(token):
            raise PortalError("org.freedesktop.portal.Error.InvalidArgument", "Invalid token %r" % token)
        session.state = "starting"
        request = "%s/request/%s/%s" % (DESKTOP_PATH, sender[1:].replace(".", "_"), token)
        registration = self.connection.register_object(
            request, REQUEST, lambda *call: call[-1].return_value(None), None, None)
        self.log("Start", sender=sender, session=path, name=name, extension=extension, options=options,
                 request=request)
        invocation.return_value(GLib.Variant("(o)", (request,)))
        GLib.idle_add(self.finish_start, session, name, extension, request, registration)

    def finish_start(self, session, name, extension, request, registration):
        response = OTHER
        try:
            if session.state != "starting":
                raise PortalError("closed", "the session closed before the start")
            host, filename, _ = find_host(session.mode, name, extension, self.log)
            if not self.grant:
                response = CANCELLED
                raise PortalError("refused", "the user did not allow it (--grant no)")
            argv = [host, filename, extension] if session.mode == "mozilla" else [host, extension]
            # g_spawn_async_with_pipes (NULL working directory, NULL envp, DO_NOT_REAP_CHILD), as
            # the portal calls it: the host gets the portal's cwd and environment, fds 0-2 only.
            pid, stdin, stdout, stderr = GLib.spawn_async(
                argv, flags=GLib.SpawnFlags.DO_NOT_REAP_CHILD, standard_input=True, standard_output=True,
                standard_error=True)
            session.pid, session.pipes = pid, [stdin, stdout, stderr]
            session.watch = GLib.child_watch_add(GLib.PRIORITY_DEFAULT, pid, session.host_exited)
            session.state = "started"
            response = SUCCESS
            self.log("host-spawned", session=session.path, pid=pid, argv=argv, cwd=os.getcwd(),
                     environment=sorted(os.environ))
        except (PortalError, GLib.Error, OSError) as error:
            self.log("start-failed", session=session.path, response=response, message=str(error))
        self.connection.emit_signal(session.sender, request, "org.freedesktop.portal.Request", "Response",
                                    GLib.Variant("(ua{sv})", (response, {})))
        self.connection.unregister_object(registration)
        self.log("Response", session=session.path, request=request, response=response)
        if response != SUCCESS:
            session.close(emit=True, why="the start failed")
        return False

    def get_pipes(self, sender, arguments, invocation):
        path, _ = arguments
        session = self.session_of(path, sender)
        if session.state != "started":
            raise PortalError("org.freedesktop.DBus.Error.Failed", "Session not started")
        if session.pipes is None:
            raise PortalError("org.freedesktop.DBus.Error.Failed", "GetPipes already called")
        # The fd list owns the three descriptors from here: the portal keeps no copy, so the
        # host sees the end of stdin when Firefox closes it.
        fds = Gio.UnixFDList.new_from_array(session.pipes)
        session.pipes = None
        self.log("GetPipes", sender=sender, session=path)
        invocation.return_value_with_unix_fd_list(
            GLib.Variant("(hhh)", (0, 1, 2)), fds)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True)
    parser.add_argument("--close-signal", choices=("TERM", "KILL"), default="KILL")
    parser.add_argument("--grant", choices=("yes", "no"), default="yes")
    args = parser.parse_args()
    portal = Portal(args)
    portal.loop = loop = GLib.MainLoop()
    Gio.bus_own_name(Gio.BusType.SESSION, BUS_NAME, Gio.BusNameOwnerFlags.DO_NOT_QUEUE,
                     portal.on_bus, portal.on_name, portal.on_name_lost)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, loop.quit)
    loop.run()
    for session in list(portal.sessions.values()):
        session.close(emit=False, why="the portal stopped")


if __name__ == "__main__":
    main()
