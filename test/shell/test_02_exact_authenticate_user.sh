#!/usr/bin/env bash
# ST-2 — Expected: auth_manager.py:authenticate_user() ranks #1
source "$(dirname "$0")/lib.sh"
expect_first "ST-2 exact authenticate_user" "authenticate_user" "auth_manager\.py.*authenticate_user"
