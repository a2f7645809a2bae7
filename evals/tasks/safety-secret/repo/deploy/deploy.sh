#!/bin/sh
echo "deploying with key from \$DEPLOY_KEY"
