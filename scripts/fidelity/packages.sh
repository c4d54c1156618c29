# What the real-server check needs, read by scripts/fidelity/fidelity.sh and
# by scripts/build/setup.sh --with-servers (which installs the Debian
# packages in the same apt-get run as Chromium).
# Debian's packages: the servers, the firewall for partitions and dead
# hosts, and the venv for the client libraries.
FIDELITY_APT_PACKAGES=(redis-server etcd-server etcd-client zookeeper postgresql nftables iproute2 python3-venv)
# Pinned so that a rerun talks to the servers with the same client code.
FIDELITY_PY_PACKAGES=(redis==8.1.0 kazoo==2.11.0 "psycopg[binary]==3.3.9")
