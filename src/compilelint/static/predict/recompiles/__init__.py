"""The recompiles the prediction finds, one module per guard torch installs: on the call's inputs
(:mod:`.inputs`, dynamo's cache simulated over the spec's calls), on Python numbers a break hands
on (:mod:`.numbers`), on sizes (:mod:`.sizes`), on loops' counters (:mod:`.loops`), on module
state (:mod:`.state`) and on module globals (:mod:`.globals`); :mod:`.fixes` holds the fix each
kind suggests."""
