"""Knowledge base: markdown documents, ingestion into Milvus Lite, and the retriever.

Imports only `config` and libraries.
"""

from config.settings import shield_milvus_environment

# Before any module here imports pymilvus, which reads MILVUS_URI at import (see the function).
shield_milvus_environment()
