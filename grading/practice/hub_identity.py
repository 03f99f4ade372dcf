"""JupyterHub as the practice service's identity backend: the student is the hub user.

On a hub the service runs as a JupyterHub service (managed: the hub starts ``nbg serve`` with
``JUPYTERHUB_API_TOKEN``, ``JUPYTERHUB_API_URL``, ``JUPYTERHUB_SERVICE_NAME`` and
``JUPYTERHUB_SERVICE_PREFIX`` in its environment; or external, with the same variables set
by hand). A student's request carries a hub token (``Authorization: token <T>``: the token of
their JupyterLab, or one from the hub's token page); :class:`HubIdentity` asks the hub whose it
is (``jupyterhub.services.auth.HubAuth.user_for_token``, cached by HubAuth for a few minutes)
and accepts it only when the token may use this service (the
``access:services!service=<name>`` scope, which the hub's ``user`` role grants in the config
of ``docs/jupyterhub.md``). Nothing is handed out: the hub user name is the student id, as it is
for nbgrader's exchange on that hub. Set in the course's ``nbgrader_config.py``::

    c.PracticeService.identity_class = "grading.practice.hub_identity.HubIdentity"
"""

from __future__ import annotations

from traitlets import Unicode

from grading.core.errors import NbgError
from grading.practice.identity import IdentityBackend, token_of


class HubIdentity(IdentityBackend):
    """The hub user of the request's token, when that token may use this service."""

    api_url = Unicode("", help="the hub's API (default: $JUPYTERHUB_API_URL, set by the hub)").tag(config=True)

    def __init__(self, course, **kwargs):
        super().__init__(course, **kwargs)
        try:
            from jupyterhub.services.auth import HubAuth
        except ImportError:
            raise NbgError("HubIdentity needs JupyterHub: pip install 'naive-bayes-course[hub]' "
                           "(or jupyterhub) where nbg serve runs") from None
        settings = {"api_url": self.api_url} if self.api_url else {}
        self.hub_auth = HubAuth(**settings)
        if not self.hub_auth.api_token:
            raise NbgError("HubIdentity needs the hub's service token: run nbg serve as a JupyterHub service "
                           "(c.JupyterHub.services in jupyterhub_config.py), which sets JUPYTERHUB_API_TOKEN")
        if not self.hub_auth.access_scopes:
            raise NbgError("HubIdentity needs the service's name: set JUPYTERHUB_SERVICE_NAME "
                           "(the hub sets it for a managed service)")

    def student(self, headers):
        token = token_of(headers)
        if token is None:
            return None
        model = self.hub_auth.user_for_token(token, sync=True)
        if not model or model.get("kind", "user") != "user" or not model.get("name"):
            return None  # not a hub user's token (a service's, or none the hub knows)
        if not self.hub_auth.check_scopes(self.hub_auth.access_scopes, model):
            return None  # a hub user's token without access to this service
        return model["name"]
