"""A throw-away PostgreSQL team database for the VS Code end-to-end test.

Prints the team DSN on the first line of stdout, then keeps the cluster running until
stdin closes (the test runner holds the pipe, so the database dies with the run).
"""

import sys

from codekeep.testing.postgres import PostgresServer, find_bin


def main() -> None:
    bin_dir = find_bin()
    if bin_dir is None:
        raise SystemExit("PostgreSQL is not installed (scripts/test installs postgresql-15)")
    server = PostgresServer(bin_dir)
    server.start()
    try:
        print(server.create_database("e2e_team"), flush=True)
        sys.stdin.read()
    finally:
        server.destroy()


if __name__ == "__main__":
    main()
