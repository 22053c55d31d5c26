# Unprivileged local users for the tests of what one user can do to another
# (sourced after lib.sh; the caller runs as root, else it skips).
# local_users NAME...: creates each (system user, no home) unless it exists.
# as_user NAME CMD...: runs CMD as NAME (its uid and gid, no other group).
# bg_as NAME CMD...: the same with exec, for '(bg_as NAME CMD) &', so that
# $! is CMD itself.
local_users() {
  local u
  for u in "$@"; do
    id "$u" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$u"
  done
}
as_user() { local u=$1; shift; setpriv --reuid="$(id -u "$u")" --regid="$(id -g "$u")" --clear-groups "$@"; }
bg_as() { local u=$1; shift; exec setpriv --reuid="$(id -u "$u")" --regid="$(id -g "$u")" --clear-groups "$@"; }
