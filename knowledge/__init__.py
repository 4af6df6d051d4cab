"""Knowledge base: markdown documents, ingestion into Milvus Lite, and the retriever.

Imports only `config` and libraries.
"""
